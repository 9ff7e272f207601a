// Stands in for the MCP SDK's Ajv validator in autopilot's bundles (scripts/build.mjs). The SDK's
// server uses a JSON Schema validator for one thing, checking what a client answers to an
// elicitation (a form the server asks the user to fill in); autopilot's server never asks, and
// Ajv with its formats would be a third of the package.
export class AjvJsonSchemaValidator {
  getValidator() {
    throw new Error('autopilot asks clients for no input: there is nothing to validate');
  }
}
