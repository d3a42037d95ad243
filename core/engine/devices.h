/* Devices a model runs on: the session option "device" ("cpu", "NAME",
 * "NAME:INDEX") resolved against the backend list, and the device contexts
 * (kn_backend_memory.open) a model opens, one per (backend, index), shared
 * by its sessions and closed when the model is destroyed. An opt-in
 * backend is probed only here, when a session names it. */
#ifndef KN_DEVICES_H
#define KN_DEVICES_H

#include <stdint.h>

#include "core/base/status.h"
#include "core/kernel/backend.h"

typedef struct kn_model_devices kn_model_devices;

/* What a device option names: *backend NULL for "cpu" (no device), else a
 * device-memory backend that is available here and *index its device.
 * KN_ERR_INVALID_ARGUMENT for a malformed option or an unknown name (the
 * message lists the backends built in and which of them are available),
 * KN_ERR_UNSUPPORTED for a backend that is built in but not available or
 * keeps its tensors in host memory. */
int kn_device_resolve(const char *option, const kn_backend **backend, int32_t *index, kn_err *err);

int kn_model_devices_create(kn_model_devices **out, kn_err *err);
/* Closes every context (NULL-safe). Whatever was allocated through them
 * (the weight store's device copies) must be freed first. */
void kn_model_devices_destroy(kn_model_devices *d);

/* The context of device `index` of backend b, opened on first use
 * (thread-safe); valid until the model is destroyed. */
int kn_model_device_open(kn_model_devices *d, const kn_backend *b, int32_t index, void **dev,
                         kn_err *err);

#endif
