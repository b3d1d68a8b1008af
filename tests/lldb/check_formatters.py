# SPDX-License-Identifier: BSL-1.0
# Imported by LLDB once lldb/own_formatters.py is loaded and tests/gdb/printers_program (the program
# the gdb printers' test debugs) has stopped in own_gdb_stop, its caller selected, where everything
# is alive (tests/CMakeLists.txt gives the commands): shows each variable and compares the text with
# what own's formatters must show. In an expectation, @ stands for any address. Prints one line per
# check and a count of mismatches, and quits LLDB with that count as its exit status.
import re

import lldb

EXPECTED = [
    ('empty', '(own::shared_ptr<int>) empty = empty {\n  get() = @\n}'),
    ('shared', '(own::shared_ptr<int>) shared = use count 3, weak count 2 {\n  get() = @\n  *get() = 42\n}'),
    ('weak', '(own::weak_ptr<int>) weak = use count 3, weak count 2 {\n  get() = @\n  *get() = 42\n}'),
    ('expired', '(own::weak_ptr<int>) expired = expired, weak count 1 {\n  get() = @\n}'),
    ('pt', '(own::shared_ptr<point>) pt = use count 1, weak count 0 {\n  get() = @\n  *get() = (x = 1, y = 2)\n}'),
    ('array', '(own::shared_ptr<int[]>) array = use count 1, weak count 0 {\n  get() = @\n}'),
    ('managed', '(own::managed_ptr<int>) managed = disposed of by own::detail::release_shared_reference(void*, void*) '
                '{\n  get() = @\n  *get() = 5\n}'),
    ('empty_managed', '(own::managed_ptr<int>) empty_managed = empty {\n  get() = 0x0000000000000000\n}'),
    ('concurrent_object', '(own::shared_ptr<point>) concurrent_object = use count 1, weak count 0 '
                          '{\n  get() = @\n  *get() = (x = 3, y = 4)\n}'),
    # A copy loaded through a load proxy, and the value's first owner: stored, the atomic's node,
    # proxied and proxied_copy (as use_count() counts them; the proxy holds one reference).
    ('loaded_through_proxy', '(const bool) loaded_through_proxy = true'),
    ('stored', '(own::shared_ptr<int>) stored = use count 4, weak count 0 {\n  get() = @\n  *get() = 13\n}'),
    ('proxied', '(own::shared_ptr<int>) proxied = use count 4, weak count 0 {\n  get() = @\n  *get() = 13\n}'),
    # Dereferencing through the formatters, as LLDB does for std::shared_ptr.
    ('*shared', '(own::shared_ptr<int>::element_type) *shared = 42'),
    ('pt->y', '(int) pt->y = 2'),
    ('*managed', '(int) *managed = 5'),
]


def __lldb_init_module(debugger, internal_dict):
    interpreter = debugger.GetCommandInterpreter()
    mismatches = 0
    for expression, expected in EXPECTED:
        result = lldb.SBCommandReturnObject()
        interpreter.HandleCommand('frame variable ' + expression, result)
        shown = (result.GetOutput() or result.GetError() or '').rstrip('\n')
        pattern = re.escape(expected).replace('@', '0x[0-9a-f]+')
        if re.fullmatch(pattern, shown):
            print('ok   %s' % expression)
        else:
            mismatches += 1
            print('FAIL %s\n  expected: %s\n  shown:    %s' % (expression, expected, shown))
    print('lldb formatters: %d mismatches' % mismatches)
    debugger.HandleCommand('process kill')
    debugger.HandleCommand('quit %d' % mismatches)
