/* Halide's Windows objects probe large stack frames with MSVC's __chkstk, which mingw-w64 lacks.
 * On x64 both __chkstk and mingw's ___chkstk_ms probe RAX bytes below RSP and preserve every
 * register, so the shim is one jump. Built only with mingw (see CMakeLists.txt); a copy of sdk/src/chkstk_mingw.c. */
__asm__(".text\n"
        ".globl __chkstk\n"
        "__chkstk:\n"
        "\tjmp ___chkstk_ms\n");
