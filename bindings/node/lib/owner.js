'use strict';
// Lifetime of native handles. C requires destroying in order: sessions,
// then their model, then its runtime. Each handle has an Owner counting the
// users that still need it (its JS object and its children); the C object
// is destroyed when the count reaches zero, after which its parent is
// released. dispose() and garbage collection (FinalizationRegistry) both
// just drop one count, so neither order nor forgotten dispose() calls can
// destroy a model under a live session.

class Owner {
  constructor(handle, destroy, parent = null) {
    this.handle = handle;
    this.destroy = destroy;
    this.parent = parent;
    this.count = 1;
    if (parent) parent.count++;
  }

  release() {
    if (this.count <= 0) return;
    if (--this.count > 0) return;
    const handle = this.handle;
    this.handle = null;
    this.destroy(handle);
    if (this.parent) this.parent.release();
  }
}

// Objects collected without dispose() release their owner.
const collected = new FinalizationRegistry((owner) => owner.release());

module.exports = { Owner, collected };
