# SPDX-License-Identifier: BSL-1.0
# gdb pretty-printers and xmethods for own's smart pointers and pools.
#
# Loading: include <own/gdb_printers.hpp> in one translation unit of a program (gdb then loads
# this script from the program's .debug_gdb_scripts section, once the program's directory is in
# gdb's auto-load safe-path), or `source <prefix>/share/own/gdb/own_printers.py` from ~/.gdbinit.
# The Debugging section of README.md says more.
#
# Everything is read from the debug information and memory of the stopped program, never by
# calling its functions: at -O0 a header-only library's inline members are emitted only where the
# program uses them, and a call could take a lock the stopped program holds. So the printers know
# the layouts of own's classes (the headers name each member read here), and the xmethods give
# `print *p`, `p->x`, `p.get()` and `p.use_count()` without the program's code.
#
# Kept free of double quotes and backslashes, so that scripts/embed_gdb_printers.py can copy it into
# an assembler string verbatim.

import re

import gdb
import gdb.printing
import gdb.types
import gdb.xmethod

# The longest free list walked to count a pool's free blocks: beyond it the count is shown as a
# lower bound rather than make gdb hang on a corrupted list.
_WALK_LIMIT = 1000000


def _atomic(value):
    # The value held by a std::atomic<T>: libstdc++ and libc++ both keep a T at the atomic's address,
    # so reading that address as a T needs no knowledge of their member names.
    held = value.type.strip_typedefs().template_argument(0)
    return value.address.cast(held.pointer()).dereference()


# std::atomic's name as gdb spells it: libc++ declares it in an inline namespace (std::__1::atomic).
_STD_ATOMIC = '^std::(__[a-z0-9_]+::)?atomic<'


def _is_std_atomic(type_):
    tag = type_.strip_typedefs().tag
    return tag is not None and re.match(_STD_ATOMIC, tag) is not None


def _pointer_text(pointer):
    return '0x%x' % int(pointer)


def _template_argument(type_, n=0):
    try:
        return type_.strip_typedefs().template_argument(n)
    except (RuntimeError, gdb.error):
        return None


def _dereferenceable(owner_type, pointer):
    # Whether the printer may show *pointer: not for null, not for void, and not for an array
    # owner (T = U[] or U[N]), whose pointer shows only the first element.
    if int(pointer) == 0:
        return False
    if pointer.type.strip_typedefs().target().strip_typedefs().code == gdb.TYPE_CODE_VOID:
        return False
    argument = _template_argument(owner_type)
    return argument is None or argument.strip_typedefs().code != gdb.TYPE_CODE_ARRAY


def _children(owner, pointer, alive=True):
    # get() and, for a live non-array object, *get(), as std::shared_ptr's printers show them.
    children = [('get()', pointer)]
    if alive and _dereferenceable(owner.type, pointer):
        children.append(('*get()', pointer.dereference()))
    return children


def _type_name(value):
    return str(value.type.strip_typedefs())


# -- shared_ptr and weak_ptr ------------------------------------------------------------------------

def _block_counts(block):
    # (shared, weak) from a control block's counts word (detail/control_block.hpp): low 32 bits
    # shared; high 32 bits weak, which also counts one for the shared owners while any remains.
    word = int(_atomic(block['counts_']))
    shared = word & 0xffffffff
    weak = (word >> 32) - (1 if shared else 0)
    return shared, weak


# A shared_ptr loaded from an atomic_shared_ptr may hold a thread's load proxy as its block: a
# control block in load_proxy_table's cells that holds one reference to the value's block, real_
# (detail/load_proxy.hpp). Its get() is the value's; the counts shown are the value's, as
# use_count() gives them (load_proxy::users_of): the value's block's count, with each proxy that
# holds a reference to it counted as its own users instead.

def _static(name):
    # A static member, or None where the program has none (it never loads from an atomic).
    try:
        return gdb.parse_and_eval(name)
    except gdb.error:
        return None


def _proxy_cells():
    return _static('own::detail::load_proxy_table::cells')


def _proxy(block, cells):
    # The load proxy whose control block `block` is, or None.
    if cells is None:
        return None
    offset = int(block) - int(cells.address)
    if not 0 <= offset < cells.type.sizeof:
        return None
    return cells[offset // cells[0].type.sizeof]['proxy']


def _owner(block):
    # The block that owns block's object (load_proxy::owner_of).
    proxy = _proxy(block, _proxy_cells())
    return block if proxy is None else _atomic(proxy['real_'])


def _users(owner):
    # use_count() of a pointer whose owner block is `owner` (load_proxy::users_of).
    users = _block_counts(owner)[0]
    cells = _proxy_cells()
    in_use = _static('own::detail::load_proxy::in_use_count_')
    if users == 0 or cells is None or in_use is None or int(_atomic(in_use)) == 0:
        return users
    for i in range(int(_atomic(_static('own::detail::load_proxy::used_end_')))):
        proxy = cells[i]['proxy']
        shared = _block_counts(proxy.address)[0]
        if shared > 0 and int(_atomic(proxy['real_'])) == int(owner):
            users += shared - (1 if int(_atomic(proxy['standing_'])) else 0) - 1
    return max(users, 1)


def _shown_counts(block):
    # (use count, weak count) of a shared_ptr or weak_ptr whose block is `block`, not null.
    owner = _owner(block)
    return _users(owner), _block_counts(owner)[1]


def _counts_text(shared, weak):
    if shared == 0:
        return '(expired, weak count %d)' % weak
    return '(use count %d, weak count %d)' % (shared, weak)


class SharedPrinter:
    # own::shared_ptr and own::weak_ptr: both are {ptr_, block_}.
    def __init__(self, value):
        self.value = value

    def to_string(self):
        block = self.value['block_']
        if int(block) == 0:
            return '%s (empty)' % _type_name(self.value)
        return '%s %s' % (_type_name(self.value), _counts_text(*_shown_counts(block)))

    def children(self):
        block = self.value['block_']
        alive = int(block) != 0 and _block_counts(_owner(block))[0] != 0
        return _children(self.value, self.value['ptr_'], alive)


class LocalPrinter:
    # own::local_shared_ptr and own::local_weak_ptr: {ptr_, counts_}, the group's counts in
    # detail/local_counts.hpp. The group holds one shared reference on the object's control block
    # while any local_shared_ptr remains, so the object lives while that block's use count is not 0.
    def __init__(self, value):
        self.value = value

    def _global_use_count(self):
        return _block_counts(self.value['counts_'].dereference()['global_'])[0]

    def to_string(self):
        if int(self.value['counts_']) == 0:
            return '%s (empty)' % _type_name(self.value)
        counts = self.value['counts_'].dereference()
        shared = int(counts['shared_'])
        weak = int(counts['weak_'])
        if self._global_use_count() == 0:
            return '%s (expired, local weak count %d)' % (_type_name(self.value), weak)
        return '%s (local use count %d, local weak count %d)' % (_type_name(self.value), shared, weak)

    def children(self):
        alive = int(self.value['counts_']) != 0 and self._global_use_count() != 0
        return _children(self.value, self.value['ptr_'], alive)


class ManagedPrinter:
    # own::managed_ptr: {ptr_, object_, cookie_, function_}; empty when object_ is null, and an
    # unowned pointer shown when function_ is dispose_nothing (managed_ptr.hpp).
    def __init__(self, value):
        self.value = value

    def _function_name(self):
        function = self.value['function_']
        symbol = gdb.block_for_pc(int(function))
        return symbol.function.print_name if symbol is not None and symbol.function is not None else None

    def to_string(self):
        if int(self.value['object_']) == 0:
            return '%s (empty)' % _type_name(self.value)
        name = self._function_name()
        if name is not None and name.startswith('own::detail::dispose_nothing'):
            return '%s (not owning)' % _type_name(self.value)
        return '%s (disposed of by %s)' % (_type_name(self.value), name or _pointer_text(self.value['function_']))

    def children(self):
        pointer = self.value['ptr_']
        if int(self.value['object_']) == 0:
            pointer = gdb.Value(0).cast(pointer.type)
        return _children(self.value, pointer)


def _ref_counter(value):
    # The intrusive_ref_counter base of a class object, or None: searched depth-first through the
    # base classes, as the library finds it by conversion.
    for field in value.type.strip_typedefs().fields():
        if not field.is_base_class:
            continue
        base = value[field]
        if base.type.strip_typedefs().tag.startswith('own::intrusive_ref_counter<'):
            return base
        found = _ref_counter(base)
        if found is not None:
            return found
    return None


class IntrusivePrinter:
    # own::intrusive_ptr: {p_}; the count is shown when the object has an intrusive_ref_counter base.
    def __init__(self, value):
        self.value = value

    def to_string(self):
        pointer = self.value['p_']
        if int(pointer) == 0:
            return '%s (empty)' % _type_name(self.value)
        object_type = pointer.type.strip_typedefs().target().strip_typedefs()
        if object_type.code == gdb.TYPE_CODE_STRUCT:
            counter = _ref_counter(pointer.dereference())
            if counter is not None:
                count = counter['count_']
                if _is_std_atomic(count.type):
                    count = _atomic(count)
                return '%s (use count %d)' % (_type_name(self.value), int(count))
        return _type_name(self.value)

    def children(self):
        return _children(self.value, self.value['p_'])


def _atomic_word(value):
    # The node pointer of an atomic_shared_ptr / atomic_weak_ptr (its atomic_smart_ptr base's word_).
    return _atomic(value['word_'])


class AtomicPrinter:
    # own::atomic_shared_ptr and own::atomic_weak_ptr (and std::atomic of own's pointers): a word
    # pointing at a node that holds the value, null when the value is empty.
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return _type_name(self.value)

    def children(self):
        node = _atomic_word(self.value)
        if int(node) == 0:
            return [('load()', 'empty')]
        return [('load()', node.dereference()['value'])]


class SnapshotPrinter:
    # own::snapshot_ptr: the value in a node protected by a hazard slot (value_), or a counted
    # shared_ptr when no slot was free (counted_).
    def __init__(self, value):
        self.value = value

    def to_string(self):
        if int(self.value['value_']) != 0:
            return '%s (in a hazard slot)' % _type_name(self.value)
        if int(self.value['counted_']['ptr_']) != 0:
            return '%s (counted)' % _type_name(self.value)
        return '%s (empty)' % _type_name(self.value)

    def children(self):
        shared = self.value['value_'].dereference() if int(self.value['value_']) != 0 else self.value['counted_']
        return _children(self.value, shared['ptr_'])


# -- pools ----------------------------------------------------------------------------------------

def _walk(head, link):
    # Length of a null-terminated list (at most _WALK_LIMIT), and whether it ended.
    n = 0
    while int(head) != 0 and n < _WALK_LIMIT:
        n += 1
        head = head.dereference()[link]
    return n, int(head) == 0


def _upstream_text(tally):
    # The requests no block fitted, sent upstream (detail/upstream_tally.hpp), when there were any.
    allocations = int(_atomic(tally['allocations_']))
    if allocations == 0:
        return ''
    return ', upstream allocations %d (%d bytes in use)' % (allocations, int(_atomic(tally['bytes_in_use_'])))


def _pool_text(kind, chunks, in_use, exact, upstream):
    return '%s (block size %d, blocks in use %s%d, high-water mark %d, chunks %d, bytes reserved %d%s)' % (
        kind, int(chunks['size_']), '' if exact else '<= ', in_use, int(chunks['carved_']),
        int(chunks['chunks_']), int(chunks['bytes_']), upstream)


def _plain_pool_free_blocks(value):
    # Length of own::pool's free list (at most _WALK_LIMIT), and whether it ended. In checked mode
    # each link is stored xor-ed with the pool's address | 1 (pool.hpp, link_key), so a stored link
    # is odd there and a real one never is: an odd link is decoded.
    key = int(value.address) | 1
    block_pointer = value['free_'].type
    head = int(value['free_'])
    n = 0
    while head != 0 and n < _WALK_LIMIT:
        n += 1
        head = int(gdb.Value(head).cast(block_pointer).dereference()['next'])
        if head & 1:
            head ^= key
    return n, head == 0


def _plain_pool_state(value):
    # own::pool: blocks in use = blocks carved from chunks - blocks on the free list (pool.hpp).
    chunks = value['chunks_']
    free, complete = _plain_pool_free_blocks(value)
    return chunks, int(chunks['carved_']) - free, complete


def _cached_blocks(cache):
    # thread_cache::cached() (detail/thread_cache.hpp), read from memory: the top of the loaded
    # magazine is the cache's own while checked in, else the owning thread's current top.
    top = int(_atomic(cache['top_']))
    if top == 0:
        owner_top = _atomic(cache['owner_top_'])
        top = int(_atomic(owner_top.dereference()))
    base = int(_atomic(cache['base_']))
    loaded = (top - base) // gdb.lookup_type('void').pointer().sizeof
    capacity = int(cache['capacity_'])
    return (loaded if 0 <= loaded <= capacity else 0) + int(_atomic(cache['previous_count_']))


def _concurrent_pool_state(value):
    # own::concurrent_pool: blocks in use = carved - the depot's free blocks - the threads' caches.
    depot = value['depot_']
    chunks = depot['chunks_']
    idle = int(depot['parked_']) * int(depot['capacity_']) + int(depot['loose_']['count'])
    cache = value['registry_']['head_']
    while int(cache) != 0:
        idle += _cached_blocks(cache.dereference())
        cache = cache.dereference()['next']
    return chunks, max(int(chunks['carved_']) - idle, 0), True


def _pool_state(value):
    if _type_name(value) == 'own::concurrent_pool':
        return _concurrent_pool_state(value)
    return _plain_pool_state(value)


class PoolPrinter:
    # own::pool and own::concurrent_pool.
    def __init__(self, value):
        self.value = value

    def to_string(self):
        chunks, in_use, exact = _pool_state(self.value)
        return _pool_text(_type_name(self.value), chunks, in_use, exact, _upstream_text(self.value['upstream_']))


class MultipoolPrinter:
    # own::multipool and own::concurrent_multipool: one pool per size class in pools_, a
    # unique_ptr<std::optional<Pool>[]> whose every element is engaged (basic_multipool.hpp). Both
    # std libraries keep the unique_ptr's pointer and the optional's value at their own addresses.
    def __init__(self, value):
        self.value = value

    def _pools(self):
        pools = self.value['pools_']
        optional = _template_argument(pools.type).strip_typedefs().target()
        pool_type = _template_argument(optional)
        first = pools.address.cast(optional.pointer().pointer()).dereference()
        for c in range(int(self.value['classes_'])):
            yield (first + c).cast(pool_type.pointer()).dereference()

    def to_string(self):
        in_use = 0
        largest = 0
        for pool in self._pools():
            chunks, blocks, _ = _pool_state(pool)
            in_use += blocks
            largest = int(chunks['size_'])
        return '%s (max block size %d, blocks in use %d%s)' % (
            _type_name(self.value), largest, in_use, _upstream_text(self.value['upstream_requests_']))

    def children(self):
        # Only the classes that hold memory: a multipool has dozens.
        children = []
        for pool in self._pools():
            chunks = _pool_state(pool)[0]
            if int(chunks['chunks_']) != 0:
                children.append(('[%d]' % int(chunks['size_']), pool))
        return children


class ObjectPoolPrinter:
    # own::object_pool and own::concurrent_object_pool: core_ counts the objects made (capacity_)
    # and keeps the free ones on a stack with a size (detail/object_pool_core.hpp, slot_stacks.hpp).
    def __init__(self, value):
        self.value = value

    def to_string(self):
        core = self.value['core_']
        capacity = int(_atomic(core['capacity_']))
        size = core['free_']['size_']
        if size.type.strip_typedefs().tag is not None:
            size = _atomic(size)
        available = max(int(size), 0)
        return '%s (capacity %d, objects in use %d, available %d)' % (
            _type_name(self.value), capacity, capacity - available, available)


class _Printers(gdb.printing.PrettyPrinter):
    # Chooses by the class name alone: gdb's RegexpCollectionPrettyPrinter falls back to a typedef's
    # name, so own::shared_ptr<int>::element_type, an int, would get the shared_ptr printer.
    def __init__(self, printers):
        gdb.printing.PrettyPrinter.__init__(self, 'own', [gdb.printing.SubPrettyPrinter(n) for n, _, _ in printers])
        self.printers = [(s, re.compile(pattern), printer) for s, (_, pattern, printer) in zip(self.subprinters, printers)]

    def __call__(self, value):
        tag = gdb.types.get_basic_type(value.type).tag
        if tag is None:
            return None
        for subprinter, pattern, printer in self.printers:
            if subprinter.enabled and pattern.match(tag):
                return printer(value)
        return None


def _printers():
    return _Printers([
        ('shared_ptr', '^own::(shared|weak)_ptr<', SharedPrinter),
        ('local_shared_ptr', '^own::local_(shared|weak)_ptr<', LocalPrinter),
        ('managed_ptr', '^own::managed_ptr<', ManagedPrinter),
        ('intrusive_ptr', '^own::intrusive_ptr<', IntrusivePrinter),
        ('atomic_shared_ptr', '^own::atomic_(shared|weak)_ptr<|' + _STD_ATOMIC + 'own::(shared|weak)_ptr<',
         AtomicPrinter),
        ('snapshot_ptr', '^own::snapshot_ptr<', SnapshotPrinter),
        ('pool', '^own::(concurrent_)?pool$', PoolPrinter),
        ('multipool', '^own::(concurrent_)?multipool$', MultipoolPrinter),
        ('object_pool', '^own::(concurrent_)?object_pool<', ObjectPoolPrinter),
    ])


# -- xmethods ---------------------------------------------------------------------------------------

def _element_pointer(value):
    # The pointer a smart pointer shows, as its get() returns it.
    name = _type_name(value)
    if name.startswith('own::intrusive_ptr<'):
        return value['p_']
    if name.startswith('own::managed_ptr<'):
        pointer = value['ptr_']
        return pointer if int(value['object_']) != 0 else gdb.Value(0).cast(pointer.type)
    if name.startswith('own::snapshot_ptr<'):
        shared = value['value_'].dereference() if int(value['value_']) != 0 else value['counted_']
        return shared['ptr_']
    return value['ptr_']


def _use_count(value):
    if _type_name(value).startswith('own::local_'):
        counts = value['counts_']
        return int(counts.dereference()['shared_']) if int(counts) != 0 else 0
    block = value['block_']
    return _users(_owner(block)) if int(block) != 0 else 0


class _Worker(gdb.xmethod.XMethodWorker):
    def __init__(self, function, result):
        gdb.xmethod.XMethodWorker.__init__(self)
        self.function = function
        self.result = result

    def get_arg_types(self):
        return None

    def get_result_type(self, obj):
        return self.result(obj)

    def __call__(self, obj):
        return self.function(obj)


def _pointer_type(obj):
    return _element_pointer(obj).type


def _element_type(obj):
    return _element_pointer(obj).type.target()


def _long_type(obj):
    return gdb.lookup_type('long')


_GET = _Worker(_element_pointer, _pointer_type)
_DEREFERENCE = _Worker(lambda obj: _element_pointer(obj).dereference(), _element_type)
_USE_COUNT = _Worker(lambda obj: gdb.Value(_use_count(obj)).cast(gdb.lookup_type('long')), _long_type)


class _Matcher(gdb.xmethod.XMethodMatcher):
    # Methods by name for the classes whose (typedef-stripped) name matches `pattern`.
    def __init__(self, name, pattern, methods):
        gdb.xmethod.XMethodMatcher.__init__(self, name)
        self.pattern = re.compile(pattern)
        self.workers = methods

    def match(self, class_type, method_name):
        tag = class_type.strip_typedefs().tag
        if tag is None or not self.pattern.match(tag):
            return None
        return self.workers.get(method_name)


def _matchers():
    pointer_methods = {'get': _GET, 'operator*': _DEREFERENCE, 'operator->': _GET}
    counted_methods = dict(pointer_methods, use_count=_USE_COUNT)
    return [
        _Matcher('own shared pointers', '^own::(local_)?shared_ptr<', counted_methods),
        _Matcher('own weak pointers', '^own::(local_)?weak_ptr<', {'use_count': _USE_COUNT}),
        _Matcher('own unique pointers', '^own::(managed|intrusive|snapshot)_ptr<', pointer_methods),
    ]


def register(objfile):
    # For `objfile`, or for every program when None (the script sourced by hand).
    gdb.printing.register_pretty_printer(objfile, _printers(), replace=True)
    for matcher in _matchers():
        gdb.xmethod.register_xmethod_matcher(objfile, matcher, replace=True)


def _register_with_program(objfile):
    # gdb asks a program's own printers first, then its libraries', then the global ones; given only
    # globally, own's would come after libstdc++'s, whose std::atomic printer takes
    # std::atomic<own::shared_ptr<T>> and fails on it. So the sourced script also gives them to each
    # program, as the embedded copy is given.
    if objfile is not None and objfile.filename == gdb.current_progspace().filename:
        register(objfile)


register(gdb.current_objfile())
if gdb.current_objfile() is None:
    for loaded in gdb.objfiles():
        _register_with_program(loaded)
    gdb.events.new_objfile.connect(lambda event: _register_with_program(event.new_objfile))
