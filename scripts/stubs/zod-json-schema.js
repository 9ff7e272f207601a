// Stands in for zod's JSON Schema writer (`z.toJSONSchema`, each schema's `toJSONSchema()` and the
// `~standard` JSON Schema methods: zod/v4/core's json-schema-processors, to-json-schema and
// json-schema-generator) in autopilot's bundles (scripts/build.mjs). zod's schemas carry a reference
// to it, so a bundler cannot trim it; but autopilot's MCP tools write their input schemas out from
// the command registry (src/mcp/tools.ts) and the MCP SDK's server converts none. A call says so.
// Saves about 17 KB of the MCP bundle (some 5 KB of the packed package).
const absent = (name) => () => {
  throw new Error(`zod's ${name} is not in autopilot's bundle: src/mcp/tools.ts writes the JSON Schemas`);
};

// A string's and a number's `minLength`, `format`, `minValue` … read this: the bounds a schema's own
// checks left in its bag, which is what those getters report for every check autopilot uses.
export function aggregateChecks(schema) {
  return { ...schema._zod.bag };
}

// json-schema-processors.js
export const anyProcessor = absent('anyProcessor');
export const arrayProcessor = absent('arrayProcessor');
export const bigintProcessor = absent('bigintProcessor');
export const booleanProcessor = absent('booleanProcessor');
export const catchProcessor = absent('catchProcessor');
export const customProcessor = absent('customProcessor');
export const dateProcessor = absent('dateProcessor');
export const defaultProcessor = absent('defaultProcessor');
export const enumProcessor = absent('enumProcessor');
export const fileProcessor = absent('fileProcessor');
export const functionProcessor = absent('functionProcessor');
export const intersectionProcessor = absent('intersectionProcessor');
export const lazyProcessor = absent('lazyProcessor');
export const literalProcessor = absent('literalProcessor');
export const mapProcessor = absent('mapProcessor');
export const nanProcessor = absent('nanProcessor');
export const neverProcessor = absent('neverProcessor');
export const nonoptionalProcessor = absent('nonoptionalProcessor');
export const nullProcessor = absent('nullProcessor');
export const nullableProcessor = absent('nullableProcessor');
export const numberProcessor = absent('numberProcessor');
export const objectProcessor = absent('objectProcessor');
export const optionalProcessor = absent('optionalProcessor');
export const pipeProcessor = absent('pipeProcessor');
export const prefaultProcessor = absent('prefaultProcessor');
export const promiseProcessor = absent('promiseProcessor');
export const readonlyProcessor = absent('readonlyProcessor');
export const recordProcessor = absent('recordProcessor');
export const setProcessor = absent('setProcessor');
export const stringProcessor = absent('stringProcessor');
export const successProcessor = absent('successProcessor');
export const symbolProcessor = absent('symbolProcessor');
export const templateLiteralProcessor = absent('templateLiteralProcessor');
export const transformProcessor = absent('transformProcessor');
export const tupleProcessor = absent('tupleProcessor');
export const undefinedProcessor = absent('undefinedProcessor');
export const unionProcessor = absent('unionProcessor');
export const unknownProcessor = absent('unknownProcessor');
export const voidProcessor = absent('voidProcessor');
export const toJSONSchema = absent('toJSONSchema');
export const allProcessors = {};

// to-json-schema.js
export const initializeContext = absent('initializeContext');
export const handleUnrepresentable = absent('handleUnrepresentable');
export const processSchema = absent('processSchema');
export const process = absent('process');
export const extractDefs = absent('extractDefs');
export const finalize = absent('finalize');
export const createToJSONSchemaMethod = () => absent('toJSONSchema');
export const createStandardJSONSchemaMethod = () => absent('~standard.jsonSchema');

// json-schema-generator.js
export class JSONSchemaGenerator {
  constructor() {
    absent('JSONSchemaGenerator')();
  }
}
