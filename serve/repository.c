#include "repository.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int all_digits(const char *s)
{
    if (!*s || strlen(s) > 18)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Folder names the protocol's URLs can carry unescaped. */
static int usable_name(const char *s)
{
    if (!*s || *s == '.' || strlen(s) > 200)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_missing(sv_repository *r, const char *name, const char *version,
                        const char *reason)
{
    if (r->missing_count == r->missing_cap) {
        int cap = r->missing_cap ? r->missing_cap * 2 : 8;
        sv_unavailable *grown = realloc(r->missing, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        r->missing = grown;
        r->missing_cap = cap;
    }
    r->missing[r->missing_count++] =
        (sv_unavailable){strdup(name), strdup(version), strdup(reason)};
}

static void drop_missing(sv_repository *r, const char *name)
{
    int kept = 0;
    for (int i = 0; i < r->missing_count; i++) {
        if (strcmp(r->missing[i].name, name) == 0) {
            free(r->missing[i].name);
            free(r->missing[i].version);
            free(r->missing[i].reason);
        } else {
            r->missing[kept++] = r->missing[i];
        }
    }
    r->missing_count = kept;
}

static int add_model(sv_repository *r, sv_model *m)
{
    if (r->count == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        sv_model **grown = realloc(r->models, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        r->models = grown;
        r->cap = cap;
    }
    r->models[r->count++] = m;
    return 0;
}

/* Loads every version folder of one model into fresh entries, without the
 * lock (loading takes long); the caller adds them. Returns the count. */
typedef struct {
    sv_model **loaded;
    int count;
    sv_unavailable *failed;
    int failed_count;
} load_result;

static void load_model_folder(const sv_repository *r, const char *name, load_result *out)
{
    memset(out, 0, sizeof *out);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", r->options->repository, name);
    sv_model_settings settings = r->options->defaults;
    char err[600];
    int settings_ok = sv_settings_read(dir, &settings, err, sizeof err) == 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char vdir[4096 + 256], path[4096 + 300];
        snprintf(vdir, sizeof vdir, "%s/%s", dir, e->d_name);
        if (!all_digits(e->d_name) || !is_dir(vdir))
            continue;
        snprintf(path, sizeof path, "%s/model.onnx", vdir);
        sv_model *m = NULL;
        if (settings_ok)
            m = sv_model_load(path, name, e->d_name, &settings, err, sizeof err);
        if (m) {
            sv_model **grown = realloc(out->loaded, (size_t)(out->count + 1) * sizeof *grown);
            if (grown) {
                out->loaded = grown;
                out->loaded[out->count++] = m;
                continue;
            }
            sv_model_destroy(m);
            snprintf(err, sizeof err, "out of memory");
        }
        sv_unavailable *grown =
            realloc(out->failed, (size_t)(out->failed_count + 1) * sizeof *grown);
        if (grown) {
            out->failed = grown;
            char reason[800];
            /* the path is the repository's, of any length: keep the reason whole */
            int n = snprintf(reason, sizeof reason, "%.*s: ", 300, settings_ok ? path : dir);
            snprintf(reason + n, sizeof reason - (size_t)n, "%.*s", 480, err);
            out->failed[out->failed_count++] =
                (sv_unavailable){strdup(name), strdup(e->d_name), strdup(reason)};
        }
    }
    closedir(d);
}

static void adopt(sv_repository *r, load_result *lr)
{
    for (int i = 0; i < lr->count; i++)
        if (add_model(r, lr->loaded[i]) != 0)
            sv_model_destroy(lr->loaded[i]);
    for (int i = 0; i < lr->failed_count; i++) {
        fprintf(stderr, "kiln serve: model '%s' version %s not loaded: %s\n",
                lr->failed[i].name, lr->failed[i].version, lr->failed[i].reason);
        add_missing(r, lr->failed[i].name, lr->failed[i].version, lr->failed[i].reason);
        free(lr->failed[i].name);
        free(lr->failed[i].version);
        free(lr->failed[i].reason);
    }
    free(lr->loaded);
    free(lr->failed);
}

int sv_repository_open(sv_repository *r, const sv_options *o, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    r->options = o;
    pthread_rwlock_init(&r->lock, NULL);
    DIR *d = opendir(o->repository);
    if (!d) {
        snprintf(err, cap, "cannot read the model repository '%s': %s", o->repository,
                 strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", o->repository, e->d_name);
        if (e->d_name[0] == '.' || !is_dir(path))
            continue;
        if (!usable_name(e->d_name)) {
            fprintf(stderr, "kiln serve: skipping '%s': model names use letters, digits, "
                            "'_', '-' and '.'\n", path);
            continue;
        }
        load_result lr;
        load_model_folder(r, e->d_name, &lr);
        adopt(r, &lr);
    }
    closedir(d);
    return 0;
}

static void wait_unused_then_destroy(sv_model *m)
{
    /* Handlers hold the model only while their request is queued or runs,
     * and the workers finish the queue before they exit. */
    while (atomic_load(&m->users) > 0) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    sv_model_destroy(m);
}

void sv_repository_close(sv_repository *r)
{
    for (int i = 0; i < r->count; i++)
        wait_unused_then_destroy(r->models[i]);
    free(r->models);
    for (int i = 0; i < r->missing_count; i++) {
        free(r->missing[i].name);
        free(r->missing[i].version);
        free(r->missing[i].reason);
    }
    free(r->missing);
    pthread_rwlock_destroy(&r->lock);
    memset(r, 0, sizeof *r);
}

sv_model *sv_repository_acquire(sv_repository *r, const char *name, const char *version)
{
    pthread_rwlock_rdlock(&r->lock);
    sv_model *best = NULL;
    for (int i = 0; i < r->count; i++) {
        sv_model *m = r->models[i];
        if (strcmp(m->name, name) != 0)
            continue;
        if (version && *version) {
            if (strcmp(m->version, version) == 0) {
                best = m;
                break;
            }
        } else if (!best || m->version_number > best->version_number) {
            best = m;
        }
    }
    if (best)
        atomic_fetch_add(&best->users, 1);
    pthread_rwlock_unlock(&r->lock);
    return best;
}

void sv_repository_release(sv_model *m)
{
    if (m)
        atomic_fetch_sub(&m->users, 1);
}

int sv_repository_is_unavailable(sv_repository *r, const char *name, const char *version)
{
    pthread_rwlock_rdlock(&r->lock);
    int found = 0;
    for (int i = 0; i < r->missing_count && !found; i++)
        found = strcmp(r->missing[i].name, name) == 0 &&
                (!version || !*version || strcmp(r->missing[i].version, version) == 0);
    pthread_rwlock_unlock(&r->lock);
    return found;
}

/* Takes every loaded version of `name` out of the table (write lock held). */
static int take_out(sv_repository *r, const char *name, sv_model ***out)
{
    int n = 0, kept = 0;
    *out = calloc((size_t)r->count + 1, sizeof **out);
    for (int i = 0; i < r->count; i++) {
        if (strcmp(r->models[i]->name, name) == 0 && *out)
            (*out)[n++] = r->models[i];
        else
            r->models[kept++] = r->models[i];
    }
    r->count = kept;
    return n;
}

int sv_repository_load(sv_repository *r, const char *name, char *err, size_t cap)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", r->options->repository, name);
    if (!usable_name(name) || !is_dir(dir)) {
        snprintf(err, cap, "no model '%s' in the repository", name);
        return 404;
    }
    load_result lr;
    load_model_folder(r, name, &lr);
    if (lr.count == 0) {
        snprintf(err, cap, "model '%s' has no version that loads%s%s", name,
                 lr.failed_count ? ": " : " (no numbered folder with model.onnx)",
                 lr.failed_count ? lr.failed[0].reason : "");
    }
    int loaded = lr.count;
    pthread_rwlock_wrlock(&r->lock);
    sv_model **old = NULL;
    int old_count = take_out(r, name, &old);
    drop_missing(r, name);
    adopt(r, &lr);
    pthread_rwlock_unlock(&r->lock);
    for (int i = 0; i < old_count; i++)
        wait_unused_then_destroy(old[i]);
    free(old);
    return loaded ? 0 : 400;
}

int sv_repository_unload(sv_repository *r, const char *name, char *err, size_t cap)
{
    pthread_rwlock_wrlock(&r->lock);
    sv_model **old = NULL;
    int n = take_out(r, name, &old);
    for (int i = 0; i < n; i++)
        add_missing(r, name, old[i]->version, "unloaded");
    pthread_rwlock_unlock(&r->lock);
    if (n == 0) {
        free(old);
        snprintf(err, cap, "model '%s' is not loaded", name);
        return 404;
    }
    /* New requests no longer find it; refuse any that got it just before,
     * and let the queued ones finish. */
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&old[i]->lock);
        old[i]->stopping = 1;
        pthread_cond_broadcast(&old[i]->work);
        pthread_mutex_unlock(&old[i]->lock);
    }
    for (int i = 0; i < n; i++)
        wait_unused_then_destroy(old[i]);
    free(old);
    return 0;
}

void sv_repository_index(sv_repository *r, sv_buffer *out)
{
    pthread_rwlock_rdlock(&r->lock);
    sv_buffer_puts(out, "[");
    int first = 1;
    for (int i = 0; i < r->count; i++) {
        sv_buffer_puts(out, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        sv_buffer_json_string(out, r->models[i]->name);
        sv_buffer_puts(out, ",\"version\":");
        sv_buffer_json_string(out, r->models[i]->version);
        sv_buffer_puts(out, ",\"state\":\"READY\"}");
    }
    for (int i = 0; i < r->missing_count; i++) {
        sv_buffer_puts(out, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        sv_buffer_json_string(out, r->missing[i].name);
        sv_buffer_puts(out, ",\"version\":");
        sv_buffer_json_string(out, r->missing[i].version);
        sv_buffer_puts(out, ",\"state\":\"UNAVAILABLE\",\"reason\":");
        sv_buffer_json_string(out, r->missing[i].reason);
        sv_buffer_puts(out, "}");
    }
    sv_buffer_puts(out, "]");
    pthread_rwlock_unlock(&r->lock);
}

void sv_repository_versions(sv_repository *r, const char *name, sv_buffer *out)
{
    pthread_rwlock_rdlock(&r->lock);
    sv_buffer_puts(out, "[");
    int first = 1;
    for (int i = 0; i < r->count; i++) {
        if (strcmp(r->models[i]->name, name) != 0)
            continue;
        if (!first)
            sv_buffer_puts(out, ",");
        first = 0;
        sv_buffer_json_string(out, r->models[i]->version);
    }
    sv_buffer_puts(out, "]");
    pthread_rwlock_unlock(&r->lock);
}

void sv_repository_metrics(sv_repository *r, sv_buffer *out)
{
    pthread_rwlock_rdlock(&r->lock);
    for (int f = 0; f < SV_METRIC_FAMILIES; f++) {
        sv_metrics_render_help(out, f);
        for (int i = 0; i < r->count; i++) {
            sv_model *m = r->models[i];
            pthread_mutex_lock(&m->lock);
            int64_t depth = m->queued;
            pthread_mutex_unlock(&m->lock);
            sv_metrics_render_model(out, f, m->name, m->version, &m->metrics, depth);
        }
    }
    pthread_rwlock_unlock(&r->lock);
}

int64_t sv_repository_backlog(sv_repository *r)
{
    pthread_rwlock_rdlock(&r->lock);
    int64_t n = 0;
    for (int i = 0; i < r->count; i++)
        n += sv_model_backlog(r->models[i]);
    pthread_rwlock_unlock(&r->lock);
    return n;
}
