'use strict';
// Defaults set by init(options): threads for models loaded without their own.
module.exports = { threads: 1 };
