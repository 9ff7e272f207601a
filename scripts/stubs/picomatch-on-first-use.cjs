// Stands in for `picomatch` in autopilot's bundles (scripts/build.mjs) and loads the real one on its first
// call: most patterns of a flow are literal or use `*` alone, which src/io/find-matches.ts matches itself,
// so most commands never need picomatch's tables built at start-up (about 40 KB of heap and 0.3 ms).
let picomatch;
module.exports = function picomatchOnFirstUse(...args) {
  picomatch ??= require('picomatch');
  return picomatch(...args);
};
