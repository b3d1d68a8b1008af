# SPDX-License-Identifier: BSL-1.0
# LLDB formatters for own's shared_ptr, weak_ptr and managed_ptr: a summary with the counts (or
# what disposes of a managed_ptr's object) and the children get() and *get(), as gdb/own_printers.py
# shows them in gdb and as LLDB shows std::shared_ptr.
#
# Loading: `command script import <prefix>/share/own/lldb/own_formatters.py`, in ~/.lldbinit to have
# it always. The README's Debugging section says more.
#
# As the gdb printers, these read the stopped program's memory through its debug information and
# never call its code (own's inline members may not exist at -O0, and a call could take a lock the
# program holds), so they know the layouts of own's classes; the headers name each member read here.

import lldb

_CATEGORY = 'own'


def _unsigned(value):
    return value.GetValueAsUnsigned(0)


def _atomic_word(atomic):
    # The integer held by a std::atomic<std::uint64_t>: libstdc++ and libc++ both keep it at the
    # atomic's address, so reading there needs no knowledge of their member names.
    error = lldb.SBError()
    word = atomic.GetProcess().ReadUnsignedFromMemory(atomic.GetLoadAddress(), atomic.GetByteSize(), error)
    return word if error.Success() else None


def _block_counts(block):
    # (shared, weak) from a control block's counts word (detail/control_block.hpp): low 32 bits
    # shared; high 32 bits weak, which also counts one for the shared owners while any remains.
    word = _atomic_word(block.Dereference().GetChildMemberWithName('counts_'))
    if word is None:
        return None
    shared = word & 0xffffffff
    return shared, (word >> 32) - (1 if shared else 0)


# A shared_ptr loaded from an atomic_shared_ptr may hold a thread's load proxy as its block: a
# control block in load_proxy_table's cells that holds one reference to the value's block, real_
# (detail/load_proxy.hpp). The counts shown are the value's, as use_count() gives them
# (load_proxy::users_of): the value's block's count, with each proxy that holds a reference to it
# counted as its own users instead.

def _static(value, name):
    # A static member, or None where the program has none (it never loads from an atomic).
    found = value.GetTarget().FindFirstGlobalVariable(name)
    return found if found.IsValid() else None


def _block_at(value, address):
    # A control_block* to `address`, made from `value`, a control_block*.
    return value.CreateValueFromAddress('block', address, value.GetType().GetPointeeType()).AddressOf()


def _owner(block):
    # The block that owns block's object (load_proxy::owner_of), or None if unreadable.
    cells = _static(block, 'own::detail::load_proxy_table::cells')
    if cells is None:
        return block
    offset = _unsigned(block) - cells.GetLoadAddress()
    if not 0 <= offset < cells.GetByteSize():
        return block
    cell = cells.GetChildAtIndex(0)
    proxy = cells.GetChildAtIndex(offset // cell.GetByteSize()).GetChildMemberWithName('proxy')
    real = _atomic_word(proxy.GetChildMemberWithName('real_'))
    return _block_at(block, real) if real else None


def _users(owner):
    # use_count() of a pointer whose owner block is `owner` (load_proxy::users_of), or None.
    counts = _block_counts(owner)
    if counts is None:
        return None
    users = counts[0]
    cells = _static(owner, 'own::detail::load_proxy_table::cells')
    in_use = _static(owner, 'own::detail::load_proxy::in_use_count_')
    if users == 0 or cells is None or in_use is None or not _atomic_word(in_use):
        return users
    for i in range(_atomic_word(_static(owner, 'own::detail::load_proxy::used_end_')) or 0):
        proxy = cells.GetChildAtIndex(i).GetChildMemberWithName('proxy')
        shared = (_block_counts(proxy.AddressOf()) or (0, 0))[0]
        if shared > 0 and _atomic_word(proxy.GetChildMemberWithName('real_')) == _unsigned(owner):
            users += shared - (1 if _atomic_word(proxy.GetChildMemberWithName('standing_')) else 0) - 1
    return max(users, 1)


def _dereferenceable(owner, pointer):
    # Not null, not void, and not an array owner (T = U[] or U[N]), whose pointer shows one element.
    if _unsigned(pointer) == 0:
        return False
    if pointer.GetType().GetPointeeType().GetCanonicalType().GetBasicType() == lldb.eBasicTypeVoid:
        return False
    argument = owner.GetType().GetCanonicalType().GetTemplateArgumentType(0)
    return not (argument.IsValid() and argument.IsArrayType())


class _PointerChildren:
    # get() and, for a live non-array object, *get(), as LLDB shows std::shared_ptr's object.
    def __init__(self, value, internal_dict):
        self.value = value
        self.children = []

    def pointer_and_alive(self):
        raise NotImplementedError

    def update(self):
        owner = self.value.GetNonSyntheticValue()
        pointer, alive = self.pointer_and_alive(owner)
        self.children = [pointer.Clone('get()')]
        if alive and _dereferenceable(owner, pointer):
            self.children.append(pointer.Dereference().Clone('*get()'))
        return False

    def num_children(self):
        return len(self.children)

    def get_child_index(self, name):
        # LLDB asks for $$dereference$$ on `frame variable *p` and `p->member`.
        if name == '$$dereference$$':
            name = '*get()'
        names = [child.GetName() for child in self.children]
        return names.index(name) if name in names else -1

    def get_child_at_index(self, index):
        return self.children[index] if 0 <= index < len(self.children) else None

    def has_children(self):
        return True


# -- shared_ptr and weak_ptr: both are {ptr_, block_} ------------------------------------------------

def shared_summary(value, internal_dict):
    block = value.GetNonSyntheticValue().GetChildMemberWithName('block_')
    if _unsigned(block) == 0:
        return 'empty'
    owner = _owner(block)
    counts = _block_counts(owner) if owner is not None else None
    shared = _users(owner) if counts is not None else None
    if shared is None:
        return 'unreadable control block at 0x%x' % _unsigned(block)
    weak = counts[1]
    if shared == 0:
        return 'expired, weak count %d' % weak
    return 'use count %d, weak count %d' % (shared, weak)


class SharedChildren(_PointerChildren):
    def pointer_and_alive(self, owner):
        block = owner.GetChildMemberWithName('block_')
        block = _owner(block) if _unsigned(block) else None
        counts = _block_counts(block) if block is not None else None
        return owner.GetChildMemberWithName('ptr_'), counts is not None and counts[0] != 0


# -- managed_ptr: {ptr_, object_, cookie_, function_} (managed_ptr.hpp) -------------------------------

def _function_name(value):
    address = _unsigned(value.GetChildMemberWithName('function_'))
    resolved = value.GetTarget().ResolveLoadAddress(address)
    function = resolved.GetFunction()
    if function.IsValid():
        return function.GetDisplayName() or function.GetName()
    symbol = resolved.GetSymbol()
    return symbol.GetDisplayName() or symbol.GetName() if symbol.IsValid() else '0x%x' % address


def managed_summary(value, internal_dict):
    owner = value.GetNonSyntheticValue()
    if _unsigned(owner.GetChildMemberWithName('object_')) == 0:
        return 'empty'
    name = _function_name(owner)
    if name.startswith('own::detail::dispose_nothing'):
        return 'not owning'
    return 'disposed of by %s' % name


class ManagedChildren(_PointerChildren):
    # Empty when object_ is null: get() is then null whatever ptr_ holds.
    def pointer_and_alive(self, owner):
        pointer = owner.GetChildMemberWithName('ptr_')
        if _unsigned(owner.GetChildMemberWithName('object_')) == 0:
            target = owner.GetTarget()
            null = lldb.SBData.CreateDataFromUInt64Array(target.GetByteOrder(), target.GetAddressByteSize(), [0])
            pointer = pointer.CreateValueFromData('get()', null, pointer.GetType())
        return pointer, True


_FORMATTERS = [
    (r'^own::(shared|weak)_ptr<.+>$', 'shared_summary', 'SharedChildren'),
    (r'^own::managed_ptr<.+>$', 'managed_summary', 'ManagedChildren'),
]


def __lldb_init_module(debugger, internal_dict):
    for pattern, summary, children in _FORMATTERS:
        debugger.HandleCommand('type summary add -e -w %s -x "%s" -F %s.%s' % (_CATEGORY, pattern, __name__, summary))
        debugger.HandleCommand('type synthetic add -w %s -x "%s" -l %s.%s' % (_CATEGORY, pattern, __name__, children))
    debugger.HandleCommand('type category enable %s' % _CATEGORY)
