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
    counts = _block_counts(block)
    if counts is None:
        return 'unreadable control block at 0x%x' % _unsigned(block)
    shared, weak = counts
    if shared == 0:
        return 'expired, weak count %d' % weak
    return 'use count %d, weak count %d' % (shared, weak)


class SharedChildren(_PointerChildren):
    def pointer_and_alive(self, owner):
        block = owner.GetChildMemberWithName('block_')
        counts = _block_counts(block) if _unsigned(block) else None
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
