// Stands in for zod's `locales` namespace in autopilot's bundles (scripts/build.mjs): zod exports
// all of its 40-odd message translations through one namespace, which a bundler cannot trim, and
// autopilot's messages are English (zod's default, which it imports on its own).
export { default as en } from 'zod/v4/locales/en.js';
