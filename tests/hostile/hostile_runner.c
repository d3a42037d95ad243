/* Runs the hostile-model corpus: every model goes through the whole public
 * API path (load from file, session, bind small inputs, run, read outputs)
 * in its own child process under an address-space limit and a timeout, and
 * must end in a clean error with a message: never a crash, hang or OOM.
 *
 *   usage: hostile_runner [options] MANIFEST
 *     --as-mb N          RLIMIT_AS of each child (default 2048; 0 = none)
 *     --timeout-s N      wall-clock limit per model (default 20)
 *     --max-arena-mb N   KILN_OPT_MAX_ARENA_MB for every session (default 0)
 *     --max-model-mb N   KILN_OPT_MAX_MODEL_MB for every load (default 0)
 *     --rss-limit-mb N   fail when a child's peak RSS exceeds N (default 0 = none)
 *     --threads N        runtime threads (default 1)
 *     --known FILE       models with a known, reported wrong outcome, one
 *                        "FILE WRONG|RSS reason" a line: such an outcome is
 *                        listed as KNOWN, not failed. Crashes and hangs are
 *                        never excused.
 *     --verbose          print every model's outcome
 *
 * MANIFEST lines: FILE CODES DESCRIPTION... where FILE is relative to the
 * manifest's folder and CODES is a comma-separated list of acceptable status
 * names (see code_names below; "OK" allows success). Lines starting with #
 * are comments. The last line printed is the summary:
 *   hostile corpus: N files, 0 crashes, 0 hangs, max time X ms, max RSS Y MiB
 * Exit status 0 only when every model ended as its line allows. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../fuzz/drive.h"
#include "kiln.h"

#if defined(__SANITIZE_ADDRESS__)
#define HR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HR_ASAN 1
#endif
#endif
#ifndef HR_ASAN
#define HR_ASAN 0
#endif

static const char *const code_names[] = {
    "OK", "INVALID_ARGUMENT", "OUT_OF_MEMORY", "IO", "INVALID_MODEL", "UNSUPPORTED", "SHAPE",
    "DTYPE", "NOT_FOUND", "STATE", "CANCELLED", "INTERNAL", "BUFFER_TOO_SMALL", "LIMIT"};
enum { N_CODES = sizeof code_names / sizeof code_names[0] };

typedef struct config {
    long as_mb, timeout_s, max_arena_mb, max_model_mb, rss_limit_mb, threads;
    int verbose;
    const char *known;
} config;

/* What the child reports back through its pipe. */
typedef struct outcome {
    int32_t stage, code;
    char msg[512];
} outcome;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void child(const config *cfg, const char *path, int fd)
{
    if (cfg->as_mb > 0 && !HR_ASAN) { /* ASan reserves terabytes of shadow */
        struct rlimit rl = {(rlim_t)cfg->as_mb << 20, (rlim_t)cfg->as_mb << 20};
        setrlimit(RLIMIT_AS, &rl);
    }
    struct rlimit core = {0, 0}; /* a crash is reported, not dumped */
    setrlimit(RLIMIT_CORE, &core);
    outcome o;
    memset(&o, 0, sizeof o);
    kiln_options *ro = NULL, *lo = NULL, *so = NULL;
    kiln_runtime *rt = NULL;
    kiln_model *m = NULL;
    if (kiln_options_create(&ro) || kiln_options_set_int(ro, KILN_OPT_THREADS, (int32_t)cfg->threads) ||
        kiln_options_create(&lo) ||
        kiln_options_set_int(lo, KILN_OPT_MAX_MODEL_MB, (int32_t)cfg->max_model_mb) ||
        kiln_options_create(&so) ||
        kiln_options_set_int(so, KILN_OPT_MAX_ARENA_MB, (int32_t)cfg->max_arena_mb) ||
        kiln_runtime_create(ro, &rt)) {
        o.stage = -1;
        o.code = KILN_ERR_INTERNAL;
        kiln_last_error(o.msg, sizeof o.msg);
    } else {
        int32_t rc = kiln_model_load_file(rt, path, lo, &m);
        if (rc != KILN_OK) {
            o.stage = KD_LOAD;
            o.code = rc;
            kiln_last_error(o.msg, sizeof o.msg);
            if (!o.msg[0])
                strcpy(o.msg, "(no message)");
        } else {
            kd_config dc = {.max_input_bytes = 16 << 20, .dyn_seed = 0, .runs = 2,
                            .session_options = so};
            kd_result r;
            o.stage = kd_drive(m, &dc, &r);
            o.code = r.code;
            memcpy(o.msg, r.msg, sizeof o.msg);
        }
    }
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
    kiln_options_destroy(ro);
    kiln_options_destroy(lo);
    kiln_options_destroy(so);
    ssize_t w = write(fd, &o, sizeof o);
    _exit(w == (ssize_t)sizeof o ? 0 : 3);
}

typedef struct run_result {
    int got_outcome, signal, hung;
    outcome o;
    double ms;
    long rss_kib;
} run_result;

static void run_one(const config *cfg, const char *path, run_result *res)
{
    memset(res, 0, sizeof *res);
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        exit(2);
    }
    fflush(NULL);
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        close(fds[0]);
        child(cfg, path, fds[1]);
    }
    close(fds[1]);
    size_t got = 0;
    double deadline = t0 + (double)cfg->timeout_s * 1e3;
    while (got < sizeof res->o) {
        double left = deadline - now_ms();
        if (left <= 0) {
            res->hung = 1;
            kill(pid, SIGKILL);
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int pr = poll(&p, 1, (int)(left < 1000 ? left + 1 : 1000));
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            continue;
        ssize_t n = read(fds[0], (char *)&res->o + got, sizeof res->o - got);
        if (n <= 0)
            break; /* the child exited (or died) without a full report */
        got += (size_t)n;
    }
    close(fds[0]);
    res->got_outcome = got == sizeof res->o;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    res->ms = now_ms() - t0;
    res->rss_kib = ru.ru_maxrss;
    if (!res->hung && WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
    else if (!res->hung && WIFEXITED(status) && WEXITSTATUS(status) != 0)
        res->got_outcome = 0; /* exited abnormally (e.g. a sanitizer report) */
    if (!res->hung && !res->signal && !res->got_outcome && WIFEXITED(status))
        res->signal = -WEXITSTATUS(status);
}

static int code_allowed(const char *codes, int32_t code)
{
    const char *name = code >= 0 && code < N_CODES ? code_names[code] : "?";
    size_t n = strlen(name);
    for (const char *p = codes; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* The known-issues list: "FILE KIND reason", KIND being WRONG (wrong status
 * or accepted) or RSS (above --rss-limit-mb). */
typedef struct known_issue {
    char file[256], kind[16];
} known_issue;
static known_issue *known_list;
static int n_known;

static void load_known(const char *path)
{
    if (!path)
        return;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hostile_runner: cannot open %s\n", path);
        exit(2);
    }
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        known_issue k;
        if (line[0] == '#' || sscanf(line, "%255s %15s", k.file, k.kind) != 2)
            continue;
        if (strcmp(k.kind, "WRONG") != 0 && strcmp(k.kind, "RSS") != 0) {
            fprintf(stderr, "hostile_runner: %s: kind must be WRONG or RSS: %s", path, line);
            exit(2);
        }
        known_issue *grown = realloc(known_list, sizeof *known_list * (size_t)(n_known + 1));
        if (!grown)
            exit(2);
        known_list = grown;
        known_list[n_known++] = k;
    }
    fclose(f);
}

/* The kind of known issue listed for file in this configuration, or NULL. */
static const char *known_kind(const config *cfg, const char *file)
{
    for (int i = 0; i < n_known; i++)
        if (strcmp(known_list[i].file, file) == 0 &&
            (strcmp(known_list[i].kind, "RSS") != 0 || cfg->rss_limit_mb > 0))
            return known_list[i].kind;
    return NULL;
}

static long parse_long(const char *s, const char *opt)
{
    char *end = NULL;
    long v = strtol(s ? s : "", &end, 10);
    if (!s || !*s || *end || v < 0) {
        fprintf(stderr, "hostile_runner: %s needs a non-negative number\n", opt);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    config cfg = {.as_mb = 2048, .timeout_s = 20, .threads = 1};
    const char *manifest = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--verbose") == 0)
            cfg.verbose = 1;
        else if (strcmp(a, "--as-mb") == 0)
            cfg.as_mb = parse_long(argv[++i], a);
        else if (strcmp(a, "--timeout-s") == 0)
            cfg.timeout_s = parse_long(argv[++i], a);
        else if (strcmp(a, "--max-arena-mb") == 0)
            cfg.max_arena_mb = parse_long(argv[++i], a);
        else if (strcmp(a, "--max-model-mb") == 0)
            cfg.max_model_mb = parse_long(argv[++i], a);
        else if (strcmp(a, "--rss-limit-mb") == 0)
            cfg.rss_limit_mb = parse_long(argv[++i], a);
        else if (strcmp(a, "--known") == 0)
            cfg.known = argv[++i];
        else if (strcmp(a, "--threads") == 0)
            cfg.threads = parse_long(argv[++i], a);
        else if (a[0] == '-') {
            fprintf(stderr, "hostile_runner: unknown option %s\n", a);
            return 2;
        } else
            manifest = a;
    }
    if (!manifest || cfg.threads < 1) {
        fprintf(stderr, "usage: hostile_runner [--as-mb N] [--timeout-s N] [--max-arena-mb N] "
                        "[--max-model-mb N] [--rss-limit-mb N] [--threads N] [--verbose] MANIFEST\n");
        return 2;
    }
    load_known(cfg.known);
    FILE *f = fopen(manifest, "r");
    if (!f) {
        fprintf(stderr, "hostile_runner: cannot open %s\n", manifest);
        return 2;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", manifest);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    if (HR_ASAN) { /* shadow memory and quarantine make RSS meaningless */
        printf("note: AddressSanitizer build: no RLIMIT_AS and no RSS limit\n");
        cfg.rss_limit_mb = 0;
    }

    long files = 0, crashes = 0, hangs = 0, wrong = 0, over_rss = 0, known = 0, fixed = 0;
    double max_ms = 0;
    long max_rss = 0;
    char max_ms_file[1024] = "", max_rss_file[1024] = "";
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char file[1024], codes[512];
        int desc_at = 0;
        if (line[0] == '#' || sscanf(line, "%1023s %511s %n", file, codes, &desc_at) < 2)
            continue;
        char *desc = line + desc_at;
        desc[strcspn(desc, "\n")] = 0;
        char path[5200];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        run_result r;
        run_one(&cfg, path, &r);
        files++;
        const char *verdict = NULL;
        char why[700] = "";
        if (r.hung) {
            hangs++;
            verdict = "HANG";
            snprintf(why, sizeof why, "no result after %ld s", cfg.timeout_s);
        } else if (r.signal > 0) {
            crashes++;
            verdict = "CRASH";
            snprintf(why, sizeof why, "signal %d (%s)", r.signal, strsignal(r.signal));
        } else if (r.signal < 0 || !r.got_outcome) {
            crashes++;
            verdict = "CRASH";
            snprintf(why, sizeof why, "child exited with status %d without a result", -r.signal);
        } else {
            int32_t code = r.o.stage == KD_DONE || r.o.stage == KD_SKIPPED ? KILN_OK : r.o.code;
            if (!code_allowed(codes, code)) {
                wrong++;
                verdict = "WRONG";
                snprintf(why, sizeof why, "expected %s, got %s", codes,
                         code >= 0 && code < N_CODES ? code_names[code] : "an unknown code");
            } else if (code != KILN_OK && (!r.o.msg[0] || strcmp(r.o.msg, "(no message)") == 0)) {
                wrong++;
                verdict = "WRONG";
                snprintf(why, sizeof why, "status %s without a message", code_names[code]);
            }
        }
        long rss_mb = r.rss_kib / 1024;
        if (!verdict && cfg.rss_limit_mb > 0 && rss_mb > cfg.rss_limit_mb) {
            over_rss++;
            verdict = "RSS";
            snprintf(why, sizeof why, "peak RSS %ld MiB above %ld MiB", rss_mb, cfg.rss_limit_mb);
        }
        if (r.ms > max_ms) {
            max_ms = r.ms;
            snprintf(max_ms_file, sizeof max_ms_file, "%s", file);
        }
        if (r.rss_kib > max_rss) {
            max_rss = r.rss_kib;
            snprintf(max_rss_file, sizeof max_rss_file, "%s", file);
        }
        const char *listed = known_kind(&cfg, file);
        if (verdict && listed && strcmp(verdict, listed) == 0) {
            strcmp(verdict, "WRONG") == 0 ? wrong-- : over_rss--;
            known++;
            verdict = "KNOWN";
        } else if (!verdict && listed) {
            fixed++;
            verdict = "FIXED";
            snprintf(why, sizeof why, "now behaves: remove it from the known-issues list");
        }
        const char *stage = r.got_outcome && r.o.stage >= 0 && r.o.stage <= KD_SKIPPED
                                ? kd_stage_names[r.o.stage] : "?";
        if (verdict || cfg.verbose) {
            printf("%-6s %-44s %7.1f ms %5ld MiB  %s/%s: %s%s%s  [%s]\n", verdict ? verdict : "ok",
                   file, r.ms, rss_mb, stage,
                   r.got_outcome && r.o.code >= 0 && r.o.code < N_CODES ? code_names[r.o.code] : "-",
                   r.got_outcome ? r.o.msg : "", why[0] ? " -- " : "", why, desc);
            fflush(stdout);
        }
    }
    fclose(f);
    if (max_ms_file[0])
        printf("slowest: %s (%.1f ms); largest: %s (%ld MiB)\n", max_ms_file, max_ms, max_rss_file,
               max_rss / 1024);
    if (wrong || over_rss || known || fixed)
        printf("%ld wrong outcomes, %ld above the RSS limit, %ld known issues, %ld fixed\n", wrong,
               over_rss, known, fixed);
    printf("hostile corpus: %ld files, %ld crashes, %ld hangs, max time %.0f ms, max RSS %ld MiB\n",
           files, crashes, hangs, max_ms, max_rss / 1024);
    return files > 0 && crashes == 0 && hangs == 0 && wrong == 0 && over_rss == 0 ? 0 : 1;
}
