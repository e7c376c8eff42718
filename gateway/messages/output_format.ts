/**
 * Structured outputs: the JSON Schema a request asks the answer to follow, from `output_config.format`
 * (the GA field) or `output_format` (the earlier beta field). Validation (validate.ts) guarantees the shape;
 * translators read the schema here and map it onto their provider's own mechanism.
 */
import type { MessagesRequest } from "./types.ts";

/** The JSON Schema of a structured-output request, or undefined for free text. */
export function outputSchemaOf(request: MessagesRequest): Record<string, unknown> | undefined {
  const format = request.output_config?.format ?? request.output_format;
  return format?.type === "json_schema" ? format.schema : undefined;
}
