/* A qemu-user TCG plugin that counts the guest instructions a run executes
 * and writes the total to the file named by its `out` argument (else
 * stderr) at exit:
 *   qemu-aarch64 -plugin ./count_insns_plugin.so,out=FILE ... PROGRAM
 * The same count as count_tb_insns.c's, without the log: at translation
 * each block gets an inline add of its instruction count to one counter,
 * run on every execution of the block (chained or not). One counter for
 * all vCPUs: Kiln runs one thread here.
 *
 * Debian's qemu-user ships plugin support (-plugin) but not the API header
 * (qemu-plugin.h), so the few entry points used are declared below as the
 * QEMU 7.2 plugin API defines them (API version 1). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;
static char out_path[4096];

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed,
                                             qemu_plugin_tb_n_insns(tb));
}

static void at_exit_print(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    FILE *f = out_path[0] ? fopen(out_path, "w") : stderr;
    if (!f)
        return;
    fprintf(f, "%" PRIu64 "\n", executed);
    if (f != stderr)
        fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const void *info,
                                                               int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            if (strlen(argv[i] + 4) >= sizeof out_path)
                return -1;
            strcpy(out_path, argv[i] + 4);
        } else {
            fprintf(stderr, "count_insns_plugin: unknown argument %s\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, at_exit_print, NULL);
    return 0;
}
