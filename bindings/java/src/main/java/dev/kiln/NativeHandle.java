package dev.kiln;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * Owns one native handle and destroys it exactly once, after every handle
 * made from it (the C API requires a runtime to outlive its models and a
 * model its sessions).
 *
 * <p>Reference counted: the owning Java object holds one reference, each
 * live child one more. {@code close()} on the owner, or the Cleaner once the
 * owner is unreachable, drops the owner's reference; the native handle is
 * destroyed when the count reaches zero, and then its parent's reference is
 * dropped in turn. So closing a Model while its Sessions are open is safe:
 * the model goes away with its last session. The Cleaner is only a safety
 * net; code should close what it opens.
 */
final class NativeHandle {
    private static final Cleaner CLEANER = Cleaner.create();

    private final LongConsumer destroy;
    private final NativeHandle parent;
    private long pointer;
    private int references = 1;
    private boolean ownerReleased;
    private Cleaner.Cleanable cleanable;

    private NativeHandle(long pointer, LongConsumer destroy, NativeHandle parent) {
        this.pointer = pointer;
        this.destroy = destroy;
        this.parent = parent;
    }

    /**
     * Wraps a new native handle owned by {@code owner}; parent (may be null)
     * is the handle it was made from and must stay alive until it is gone.
     */
    static NativeHandle create(Object owner, long pointer, LongConsumer destroy,
            NativeHandle parent) {
        if (parent != null) {
            parent.retain();
        }
        NativeHandle handle = new NativeHandle(pointer, destroy, parent);
        // The action must not reach owner, or owner would never be collected.
        handle.cleanable = CLEANER.register(owner, handle::releaseOwner);
        return handle;
    }

    /** The native pointer; throws if the owner was closed. */
    synchronized long get(String what) {
        if (ownerReleased || pointer == 0) {
            throw new IllegalStateException(what + " is closed");
        }
        return pointer;
    }

    synchronized boolean isClosed() {
        return ownerReleased;
    }

    /** The owner's close(): idempotent. */
    void close() {
        cleanable.clean(); // runs releaseOwner at most once
    }

    private void releaseOwner() {
        synchronized (this) {
            if (ownerReleased) {
                return;
            }
            ownerReleased = true;
        }
        release();
    }

    synchronized void retain() {
        if (pointer == 0) {
            throw new IllegalStateException("native handle already destroyed");
        }
        references++;
    }

    void release() {
        long doomed;
        synchronized (this) {
            if (--references > 0) {
                return;
            }
            doomed = pointer;
            pointer = 0;
        }
        if (doomed != 0) {
            destroy.accept(doomed);
        }
        if (parent != null) {
            parent.release();
        }
    }
}
