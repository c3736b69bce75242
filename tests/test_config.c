/* The environment, read once at the first call: test_config WARNING POLICY VARIANT checks that
 * lumen_config_warning() contains each '|'-separated part of WARNING ("" = must be empty), the
 * default context's policy is POLICY and the CPU variant is VARIANT ("-": any). Run with
 * LUMEN_BACKEND / LUMEN_MAX_CPU_ISA set by the test (tests/CMakeLists.txt). */
#include <lumen/lumen.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    const char *warning = lumen_config_warning();
    const char *policy = lumen_backend_name(lumen_context_policy(NULL));
    const char *variant = lumen_cpu_variant();
    int ok = *argv[1] ? 1 : *warning == '\0';
    for (char *part = strtok(argv[1], "|"); part; part = strtok(NULL, "|"))
        ok = ok && strstr(warning, part) != NULL;
    ok = ok && strcmp(policy, argv[2]) == 0 &&
         (strcmp(argv[3], "-") == 0 || strcmp(variant, argv[3]) == 0);
    printf("warning \"%s\", policy %s, variant %s: %s\n", warning, policy, variant,
           ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
