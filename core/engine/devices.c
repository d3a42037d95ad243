#include "core/engine/devices.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine/registry.h"

/* Plenty: a model runs on a handful of devices at most. */
enum { KN_MAX_OPEN_DEVICES = 32 };

typedef struct open_device {
    const kn_backend *backend;
    int32_t index;
    void *dev;
} open_device;

struct kn_model_devices {
    pthread_mutex_t lock; /* sessions of one model are created on any thread */
    open_device open[KN_MAX_OPEN_DEVICES];
    int32_t n_open;
};

/* "cpu (available), dnnl (available), cuda (opt-in, not probed)": the list
 * for an unknown name. Opt-in backends are not probed even here: loading a
 * GPU stack to word an error about a typo would cost the second that
 * KN_BACKEND_OPT_IN exists to save. */
static void list_backends(char *buf, size_t cap)
{
    const kn_backend *const *list = kn_backends();
    size_t at = 0;
    buf[0] = 0;
    for (int32_t i = 0; i < kn_backend_count() && at < cap; i++) {
        const kn_backend *b = list[i];
        const char *state = (b->flags & KN_BACKEND_OPT_IN)      ? "opt-in, not probed"
                            : (!b->available || b->available()) ? "available"
                                                                : "not available";
        int n = snprintf(buf + at, cap - at, "%s%s (%s)", i ? ", " : "", b->name, state);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

static int unknown_device(const char *option, kn_err *err)
{
    char names[512];
    list_backends(names, sizeof names);
    return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                   "unknown device '%s': the backends built in "
                   "are %s; a device is named \"cpu\", \"NAME\" or \"NAME:INDEX\"",
                   option, names);
}

int kn_device_resolve(const char *option, const kn_backend **backend, int32_t *index, kn_err *err)
{
    *backend = NULL;
    *index = 0;
    if (!option || !option[0] || strcmp(option, "cpu") == 0)
        return KN_OK;
    char name[64];
    const char *colon = strchr(option, ':');
    size_t len = colon ? (size_t)(colon - option) : strlen(option);
    if (len == 0 || len >= sizeof name)
        return unknown_device(option, err);
    memcpy(name, option, len);
    name[len] = 0;
    if (colon) {
        char *end = NULL;
        long i = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end || i < 0 || i > 1023)
            return kn_fail(err, KN_ERR_INVALID_ARGUMENT,
                           "device '%s': the index after ':' must "
                           "be a number 0..1023",
                           option);
        *index = (int32_t)i;
    }
    int32_t at = kn_backend_index(name);
    if (at < 0)
        return unknown_device(option, err);
    const kn_backend *b = kn_backends()[at];
    if (b->memory.kind != KN_MEMORY_DEVICE) {
        if (strcmp(name, "cpu") == 0 && *index == 0)
            return KN_OK;
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "device '%s': backend '%s' keeps its tensors in "
                       "host memory and serves every session already; name a device backend "
                       "or \"cpu\"",
                       option, name);
    }
    if (b->available && !b->available()) {
        /* The user asked for this device by name, so say why it is missing:
         * opening it fails with the backend's own reason (the library not
         * found, no driver, no such device). */
        kn_err why = {0};
        void *dev = b->memory.open ? b->memory.open(*index, &why) : NULL;
        if (dev)
            b->memory.close(dev);
        return kn_fail(err, KN_ERR_UNSUPPORTED,
                       "device '%s': backend '%s' is built in but not available here: %s", option,
                       name, !dev && why.msg[0] ? why.msg : "its library or device is missing");
    }
    *backend = b;
    return KN_OK;
}

int kn_model_devices_create(kn_model_devices **out, kn_err *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return kn_fail(err, KN_ERR_OUT_OF_MEMORY, "out of memory creating the model");
    pthread_mutex_init(&(*out)->lock, NULL);
    return KN_OK;
}

void kn_model_devices_destroy(kn_model_devices *d)
{
    if (!d)
        return;
    for (int32_t i = 0; i < d->n_open; i++)
        d->open[i].backend->memory.close(d->open[i].dev);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

int kn_model_device_open(kn_model_devices *d, const kn_backend *b, int32_t index, void **dev,
                         kn_err *err)
{
    *dev = NULL;
    int rc = KN_OK;
    pthread_mutex_lock(&d->lock);
    for (int32_t i = 0; i < d->n_open && !*dev; i++)
        if (d->open[i].backend == b && d->open[i].index == index)
            *dev = d->open[i].dev;
    if (!*dev) {
        if (d->n_open == KN_MAX_OPEN_DEVICES)
            rc = kn_fail(err, KN_ERR_LIMIT, "a model runs on at most %d devices",
                         KN_MAX_OPEN_DEVICES);
        else if (!(*dev = b->memory.open(index, err)))
            rc = err->code != KN_OK ? err->code
                                    : kn_fail(err, KN_ERR_UNSUPPORTED, "cannot open device %s:%d",
                                              b->name, (int)index);
        else
            d->open[d->n_open++] = (open_device){b, index, *dev};
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}
