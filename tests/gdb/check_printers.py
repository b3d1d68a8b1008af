# SPDX-License-Identifier: BSL-1.0
# Run by gdb (tests/CMakeLists.txt: gdb -batch -x check_printers.py printers_program, after loading
# the printers from the program's .debug_gdb_scripts section or from gdb/own_printers.py): stops
# printers_program where everything is alive, prints each kind, and compares the text with what
# own's printers and xmethods must show.
# In an expectation, @ stands for any address and # for any number: the bytes a pool reserves and
# the blocks a thread's cache holds depend on tuning that these printers only report. Where gdb
# shows the standard library's own types, the text depends on it: STD_TEXT gives each library's.
# Exits gdb with the number of mismatches.
import re

import gdb

EXPECTED = [
    ('empty', 'own::shared_ptr<int> (empty) = {get() = 0x0}'),
    ('shared', 'own::shared_ptr<int> (use count 3, weak count 2) = {get() = @, *get() = 42}'),
    ('weak', 'own::weak_ptr<int> (use count 3, weak count 2) = {get() = @, *get() = 42}'),
    ('expired', 'own::weak_ptr<int> (expired, weak count 1) = {get() = @}'),
    ('pt', 'own::shared_ptr<(anonymous namespace)::point> (use count 1, weak count 0) = '
           '{get() = @, *get() = {x = 1, y = 2}}'),
    ('array', 'own::shared_ptr<int []> (use count 1, weak count 0) = {get() = @}'),
    ('managed', 'own::managed_ptr<int> (disposed of by own::detail::release_shared_reference(void*, void*)) = '
                '{get() = @, *get() = 5}'),
    ('empty_managed', 'own::managed_ptr<int> (empty) = {get() = 0x0}'),
    ('local', 'own::local_shared_ptr<int> (local use count 2, local weak count 1) = {get() = @, *get() = 9}'),
    ('local_weak', 'own::local_weak_ptr<int> (local use count 2, local weak count 1) = {get() = @, *get() = 9}'),
    ('intrusive', 'own::intrusive_ptr<(anonymous namespace)::counted> (use count 2) = {get() = @, *get() = '
                  '{<own::intrusive_ref_counter<(anonymous namespace)::counted, own::thread_safe_counter>> = '
                  '{count_ = $atomic_2, header_offset_ = 0}, value = 7}}'),
    ('atomic', 'own::atomic_shared_ptr<int> = {load() = own::shared_ptr<int> (use count 3, weak count 2) = '
               '{get() = @, *get() = 42}}'),
    ('atomic_empty', 'own::atomic_shared_ptr<int> = {load() = empty}'),
    ('atomic_weak', 'own::atomic_weak_ptr<int> = {load() = own::weak_ptr<int> (use count 3, weak count 2) = '
                    '{get() = @, *get() = 42}}'),
    ('snapshot', 'own::snapshot_ptr<int> (in a hazard slot) = {get() = @, *get() = 42}'),
    ('std_atomic', '$std::atomic<own::shared_ptr<int> > = {load() = own::shared_ptr<int> (use count 1, weak count 0) = '
                   '{get() = @, *get() = 11}}'),
    # stored, reloaded's node, proxied and proxied_copy: the count the program's use_count() gives,
    # though the last two hold a load proxy's block, which holds one reference to stored's.
    ('loaded_through_proxy', 'true'),
    ('stored', 'own::shared_ptr<int> (use count 4, weak count 0) = {get() = @, *get() = 13}'),
    ('proxied', 'own::shared_ptr<int> (use count 4, weak count 0) = {get() = @, *get() = 13}'),
    ('reloaded', 'own::atomic_shared_ptr<int> = {load() = own::shared_ptr<int> (use count 4, weak count 0) = '
                 '{get() = @, *get() = 13}}'),
    ('pool', 'own::pool (block size 64, blocks in use 2, high-water mark 3, chunks 1, bytes reserved #, '
             'upstream allocations 1 (100 bytes in use))'),
    ('concurrent', 'own::concurrent_pool (block size 32, blocks in use 2, high-water mark #, chunks 1, '
                   'bytes reserved #)'),
    ('multi', 'own::multipool (max block size 256, blocks in use 2, upstream allocations 1 (300 bytes in use)) = '
              '{[40] = own::pool (block size 40, blocks in use 1, high-water mark 1, chunks 1, bytes reserved #), '
              '[224] = own::pool (block size 224, blocks in use 1, high-water mark 1, chunks 1, bytes reserved #)}'),
    ('concurrent_multi', 'own::concurrent_multipool (max block size 64, blocks in use 1) = '
                         '{[16] = own::concurrent_pool (block size 16, blocks in use 1, high-water mark #, chunks 1, '
                         'bytes reserved #)}'),
    ('objects', 'own::object_pool<int> (capacity 4, objects in use 1, available 3)'),
    ('concurrent_objects', 'own::concurrent_object_pool<(anonymous namespace)::point> '
                           '(capacity 2, objects in use 1, available 1)'),
    ('concurrent_object', 'own::shared_ptr<(anonymous namespace)::point> (use count 1, weak count 0) = '
                          '{get() = @, *get() = {x = 3, y = 4}}'),
    # The xmethods: what the program never compiled (inline members unused at -O0) still evaluates.
    ('*shared', '42'),
    ('pt->y', '2'),
    ('shared.use_count()', '3'),
    ('weak.use_count()', '3'),
    ('proxied.use_count()', '4'),
    ('stored.use_count()', '4'),
    ('*managed', '5'),
    ('intrusive->value', '7'),
    ('*snapshot', '42'),
    ('*local', '9'),
    ('local.use_count()', '2'),
]

# The variables of a C++20 program only (std::atomic<own::shared_ptr<T>> is C++20's).
CXX20_ONLY = {'std_atomic'}

# For libstdc++ and for libc++ (told apart by libc++'s inline namespace std::__1): the namespace gdb
# names std's classes in, and a std::atomic<unsigned int> holding 2 as gdb shows it (libc++ has no
# printers that gdb loads, so its layout shows).
STD_TEXT = {
    False: {'$std::': 'std::', '$atomic_2': 'std::atomic<unsigned int> = { 2 }'},
    True: {'$std::': 'std::__1::',
           '$atomic_2': '{<std::__1::__atomic_base<unsigned int, true>> = {<std::__1::__atomic_base<unsigned int, '
                        'false>> = {__a_ = {<std::__1::__cxx_atomic_base_impl<unsigned int>> = {__a_value = 2}, '
                        '<No data fields>}, static is_always_lock_free = <optimized out>}, <No data fields>}, '
                        '<No data fields>}'},
}


def main():
    gdb.execute('break own_gdb_stop')
    gdb.execute('run')
    gdb.execute('up')
    mismatches = 0
    libcxx = str(gdb.parse_and_eval('intrusive.p_->count_').type.strip_typedefs()).startswith('std::__1::')
    for expression, expected in EXPECTED:
        if expression in CXX20_ONLY and gdb.lookup_symbol(expression)[0] is None:
            print('skip %s (C++17)' % expression)
            continue
        for token, text in STD_TEXT[libcxx].items():
            expected = expected.replace(token, text)
        try:
            shown = gdb.execute('output ' + expression, to_string=True)
        except gdb.error as error:
            shown = 'error: %s' % error
        pattern = re.escape(expected).replace('@', '0x[0-9a-f]+').replace('\\#', '[0-9]+')
        if re.fullmatch(pattern, shown):
            print('ok   %s' % expression)
        else:
            mismatches += 1
            print('FAIL %s\n  expected: %s\n  shown:    %s' % (expression, expected, shown))
    gdb.execute('kill')
    gdb.execute('quit %d' % mismatches)


main()
