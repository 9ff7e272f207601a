// Stands in for debug in autopilot's bundles (scripts/build.mjs): simple-git and
// @kwsites/file-exists write a trace of their internals through it only when $DEBUG names them,
// which autopilot never asks for (its git errors carry git's own words). A logger that says
// nothing, with the parts they reach for: `extend`, `namespace`, `enabled` and `formatters`.
export default function createDebug(namespace = '') {
  const log = () => {};
  log.namespace = namespace;
  log.enabled = false;
  log.extend = (more, delimiter = ':') => createDebug(`${namespace}${delimiter}${more}`);
  return log;
}
createDebug.formatters = {};
