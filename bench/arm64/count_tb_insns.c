/* Counts the guest instructions a qemu-user run executes, from its log
 * with `-d in_asm,exec,nochain`: in_asm prints each translated block's
 * instructions once ("IN:" then one "0xADDR:  ..." line per instruction),
 * exec prints "Trace N: HOST [FLAGS/PC/...]" before every execution of a
 * block (nochain: every execution, not only the first of a chain). The
 * count is the sum over executions of the block's instruction count. A
 * block cut short by a fault or a signal counts in full: negligible here.
 * Reads the log on stdin (a FIFO: the full log of a model run is many GB);
 * prints the total.
 *   count_tb_insns < FIFO */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (1u << 22) /* open addressing; far more blocks than a run translates */

static uint64_t keys[SLOTS];
static uint32_t counts[SLOTS];

static uint32_t *slot(uint64_t pc)
{
    uint64_t h = (pc * 0x9E3779B97F4A7C15ull) >> 42;
    for (;; h = (h + 1) & (SLOTS - 1)) {
        if (keys[h] == pc || keys[h] == 0) {
            keys[h] = pc;
            return &counts[h];
        }
    }
}

int main(void)
{
    static char line[4096];
    uint64_t total = 0, blocks = 0, block_pc = 0;
    uint32_t in_block = 0, n = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (in_block) {
            if (line[0] == '0' && line[1] == 'x') {
                if (n++ == 0)
                    block_pc = strtoull(line, NULL, 16);
                continue;
            }
            if (n)
                *slot(block_pc) = n; /* a retranslation replaces the old size */
            in_block = 0;
        }
        if (strncmp(line, "IN:", 3) == 0) {
            in_block = 1;
            n = 0;
        } else if (strncmp(line, "Trace ", 6) == 0) {
            const char *b = strchr(line, '[');
            const char *s = b ? strchr(b, '/') : NULL;
            if (!s)
                continue;
            uint64_t pc = strtoull(s + 1, NULL, 16);
            total += *slot(pc);
            blocks++;
        }
    }
    printf("%llu instructions in %llu block executions\n", (unsigned long long)total,
           (unsigned long long)blocks);
    return 0;
}
