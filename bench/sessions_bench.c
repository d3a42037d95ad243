/* Many sessions over one model: what each session costs in memory, and how
 * throughput scales when threads each run a session of their own.
 *
 *   kiln_sessions_bench MODEL INPUT.pb [--sessions N] [--runs R]
 *
 * Loads MODEL, then creates N sessions one by one (each runs once on the
 * input), printing the process's resident set after the load and after each
 * session, with the session's arena. Then times R runs on one thread (one
 * session, runtime threads 1), and R runs on each of N threads at once (one
 * session each), and prints runs per second and their ratio. The CPU model is
 * printed first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln.h"

typedef struct worker {
    kiln_session *session;
    int runs;
    int failed;
} worker;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double rss_mib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            v = atof(line + 6) / 1024.0;
    if (f)
        fclose(f);
    return v;
}

static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, cap, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = 0;
            break;
        }
    }
    if (f)
        fclose(f);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->runs && !w->failed; i++)
        w->failed = kiln_session_run(w->session) != KILN_OK;
    return NULL;
}

static int fail(const char *what)
{
    char msg[512];
    kiln_last_error(msg, sizeof msg);
    fprintf(stderr, "kiln_sessions_bench: %s: %s\n", what, msg);
    return 1;
}

/* Runs each of the n sessions `runs` times on a thread of its own, all at
 * once; runs per second over all of them. */
static double throughput(kiln_session **s, int n, int runs)
{
    pthread_t t[64];
    worker w[64];
    double start = now_s();
    for (int i = 0; i < n; i++) {
        w[i] = (worker){s[i], runs, 0};
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        failed |= w[i].failed;
    }
    return failed ? -1 : (double)(n * runs) / (now_s() - start);
}

int main(int argc, char **argv)
{
    int sessions = 4, runs = 20;
    if (argc < 3) {
        fprintf(stderr, "usage: kiln_sessions_bench MODEL INPUT.pb [--sessions N] [--runs R]\n");
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sessions") == 0)
            sessions = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
    }
    if (sessions < 1 || sessions > 64 || runs < 1) {
        fprintf(stderr, "kiln_sessions_bench: --sessions 1..64, --runs >= 1\n");
        return 2;
    }
    char cpu[160];
    cpu_model(cpu, sizeof cpu);
    printf("CPU: %s\n", cpu);
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    void *bytes = malloc((size_t)size);
    if (!bytes || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        return fail("reading the input");
    }
    fclose(f);
    kiln_runtime *rt = NULL;
    kiln_model *m = NULL;
    kiln_tensor *input = NULL;
    if (kiln_runtime_create(NULL, &rt) != KILN_OK)
        return fail("runtime");
    double before = rss_mib();
    if (kiln_model_load_file(rt, argv[1], NULL, &m) != KILN_OK)
        return fail("load");
    if (kiln_tensor_decode(bytes, (size_t)size, &input) != KILN_OK)
        return fail("decoding the input");
    printf("RSS: %.1f MiB before the model, %.1f MiB after loading it\n", before, rss_mib());
    kiln_session **s = calloc((size_t)sessions, sizeof *s);
    for (int i = 0; i < sessions; i++) {
        int64_t arena = 0;
        if (kiln_session_create(m, NULL, &s[i]) != KILN_OK ||
            kiln_session_set_input_value(s[i], 0, input) != KILN_OK ||
            kiln_session_run(s[i]) != KILN_OK || kiln_session_plan_bytes(s[i], &arena, NULL))
            return fail("session");
        int64_t weights = 0, prepared = 0, given_back = 0;
        if (kiln_model_memory_info(m, &weights, &prepared, &given_back) != KILN_OK)
            return fail("memory info");
        printf("RSS: %.1f MiB with %d session(s) (this one's arena %.1f MiB; the model's "
               "weights %.1f MiB, shared prepared copies %.1f MiB, %.1f MiB of raw weights "
               "given back)\n",
               rss_mib(), i + 1, (double)arena / 1048576.0, (double)weights / 1048576.0,
               (double)prepared / 1048576.0, (double)given_back / 1048576.0);
    }
    double one = throughput(s, 1, runs);
    double many = throughput(s, sessions, runs);
    if (one < 0 || many < 0)
        return fail("run");
    printf("throughput: %.2f runs/s on one thread, %.2f runs/s on %d threads (one session "
           "each): %.2fx\n", one, many, sessions, many / one);
    for (int i = 0; i < sessions; i++)
        kiln_session_destroy(s[i]);
    free(s);
    kiln_tensor_destroy(input);
    kiln_model_destroy(m);
    kiln_runtime_destroy(rt);
    free(bytes);
    return 0;
}
