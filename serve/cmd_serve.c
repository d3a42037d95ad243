/* `kiln serve REPO`: loads the repository, listens, and on SIGTERM or
 * SIGINT drains: inference gets 503 and readiness turns false, requests
 * already accepted finish and are answered, then the process exits 0. */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "../cli/commands.h"
#include "http_server.h"
#include "repository.h"
#include "serve_options.h"

/* Never runs (the signals stay blocked and are taken by sigwait); having a
 * handler at all matters as the first process of a container, where the
 * kernel drops signals whose action is the default. */
static void on_stop_signal(int sig)
{
    (void)sig;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int cmd_serve(int argc, char **argv)
{
    sv_options options;
    int parsed = sv_options_parse(argc, argv, &options);
    if (parsed != 0)
        return parsed > 0 ? EXIT_OK : EXIT_USAGE;

    /* Every thread started from here on (workers, connections) inherits a
     * mask without these two, so they reach this thread's sigwait only. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGTERM, on_stop_signal);
    signal(SIGINT, on_stop_signal);
    signal(SIGPIPE, SIG_IGN); /* a client that hangs up is not a reason to die */

    char err[1024];
    sv_repository repo;
    if (sv_repository_open(&repo, &options, err, sizeof err) != 0) {
        fprintf(stderr, "kiln serve: %s\n", err);
        return EXIT_FAIL;
    }
    sv_http *http = sv_http_start(&options, &repo, err, sizeof err);
    if (!http) {
        fprintf(stderr, "kiln serve: %s\n", err);
        sv_repository_close(&repo);
        return EXIT_FAIL;
    }
    printf("kiln serve: %d model version%s loaded, listening on http://%s:%d\n", repo.count,
           repo.count == 1 ? "" : "s", options.host, sv_http_port(http));
    fflush(stdout);

    int sig = 0;
    sigwait(&stop_signals, &sig);
    fprintf(stderr, "kiln serve: %s: draining (new requests get 503)\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT");
    sv_http_begin_drain(http);
    /* Accepted requests: those in the models' queues and runs, and HTTP
     * requests still being read or answered. */
    long waited = 0, limit = options.drain_timeout_s * 1000L;
    while ((sv_repository_backlog(&repo) > 0 || sv_http_active(http) > 0) && waited < limit) {
        sleep_ms(5);
        waited += 5;
    }
    int64_t left = sv_repository_backlog(&repo) + sv_http_active(http);
    sv_http_stop(http);
    sv_repository_close(&repo);
    if (left > 0) {
        fprintf(stderr, "kiln serve: stopped with %lld requests unanswered after the %d s drain "
                        "timeout\n", (long long)left, options.drain_timeout_s);
        return EXIT_FAIL;
    }
    fprintf(stderr, "kiln serve: drained, exiting\n");
    return EXIT_OK;
}
