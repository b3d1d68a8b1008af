#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
# Writes include/own/gdb_printers.hpp from gdb/own_printers.py: the script, line by line, in a
# .debug_gdb_scripts section that gdb reads when it loads the program (an inlined Python script,
# entry kind 4 in gdb's manual, "dotdebug_gdb_scripts section"). The header is committed, so that
# users of the installed or fetched package need no generator; the CTest test
# gdb_printers_header_in_sync runs this with --check, so an edit to the script without
# regenerating fails.
# Usage: scripts/embed_gdb_printers.py [--check]
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / 'gdb' / 'own_printers.py'
HEADER = ROOT / 'include' / 'own' / 'gdb_printers.hpp'

PROLOGUE = '''\
// SPDX-License-Identifier: BSL-1.0
// Generated from gdb/own_printers.py by scripts/embed_gdb_printers.py: edit those, not this file.
/// @file
/// Opt-in gdb pretty-printers and xmethods for own's pointers and pools: include this header in
/// any translation unit of a program (several are fine: the linker keeps one copy), and gdb shows
/// `own::shared_ptr<int> (use count 1, weak count 0) = {get() = 0x..., *get() = 42}` and accepts
/// `print *p`, once the program's directory is in its auto-load safe-path
/// (`add-auto-load-safe-path /path/to/program` in ~/.gdbinit). The script rides in the program's
/// .debug_gdb_scripts section; nothing runs in the program. ELF targets with gcc or clang only.
///
/// Usage (tests/gdb/printers_program.cpp does this, and the gdb_printers tests check what gdb says):
///
///     #include <own/gdb_printers.hpp>   // in any one .cpp of the program
///     auto p = own::make_shared<int>(42);
///
///     (gdb) print p     // own::shared_ptr<int> (use count 1, weak count 0) = {get() = 0x..., *get() = 42}
///     (gdb) print *p    // 42
#pragma once

#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
// "MS" (mergeable strings): the copies that several translation units emit become one.
__asm__(
    ".pushsection \\".debug_gdb_scripts\\", \\"MS\\", %progbits, 1\\n"
    ".byte 4\\n"
    ".ascii \\"gdb.inlined-script.own_printers\\\\n\\"\\n"
'''

EPILOGUE = '''\
    ".byte 0\\n"
    ".popsection\\n");
#endif
'''


def generate():
    lines = SCRIPT.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if '"' in line or '\\' in line:
            sys.exit(f'{SCRIPT}:{number}: no double quotes or backslashes, so that the line embeds verbatim')
    body = ''.join(f'    ".ascii \\"{line}\\\\n\\"\\n"\n' for line in lines)
    return PROLOGUE + body + EPILOGUE


def main():
    text = generate()
    if sys.argv[1:] == ['--check']:
        if HEADER.read_text() != text:
            sys.exit(f'{HEADER} is out of date: run scripts/embed_gdb_printers.py')
        return
    HEADER.write_text(text)


if __name__ == '__main__':
    main()
