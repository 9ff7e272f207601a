// Stands in for `debug` in autopilot's bundles (scripts/build.mjs). simple-git and its helper
// @kwsites/file-exists log through it, and only when the DEBUG variable names them: autopilot's git
// calls are its commands' own work, and a failure carries git's words in autopilot's error. Saves
// `debug`, `ms` and their helpers (3.4 KB of the package).
function logger(namespace) {
  const log = () => {};
  log.namespace = namespace;
  log.enabled = false;
  log.extend = (name, delimiter = ':') => logger(`${namespace}${delimiter}${name}`);
  return log;
}
const debug = (namespace) => logger(namespace);
debug.formatters = {};
debug.enabled = () => false;
export default debug;
