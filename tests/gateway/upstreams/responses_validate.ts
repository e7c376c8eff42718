/**
 * The request checks of the loopback Responses API server, written from OpenAI's API reference: unknown
 * parameters, wrong types and values are refused as OpenAI refuses them (400 `invalid_request_error` naming
 * `param`), including the model-dependent rules (sampling and reasoning parameters) and strict function
 * schemas. Returns the error body, or undefined for a valid request.
 */

/** OpenAI's error body. */
export interface OpenAiError {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const TOP_LEVEL = new Set([
  "background",
  "context_management",
  "conversation",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "model",
  "parallel_tool_calls",
  "previous_response_id",
  "prompt",
  "prompt_cache_key",
  "prompt_cache_retention",
  "reasoning",
  "safety_identifier",
  "service_tier",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
]);
const INCLUDABLE = new Set([
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
  "message.input_image.image_url",
  "file_search_call.results",
]);
const ITEM_KEYS: Record<string, string[]> = {
  message: ["type", "role", "content", "id", "status"],
  function_call: ["type", "call_id", "name", "arguments", "id", "status"],
  function_call_output: ["type", "call_id", "output", "id", "status"],
  reasoning: ["type", "id", "summary", "encrypted_content", "content", "status"],
};
const PART_KEYS: Record<string, string[]> = {
  input_text: ["type", "text"],
  input_image: ["type", "image_url", "file_id", "detail"],
  input_file: ["type", "file_data", "file_id", "file_url", "filename"],
  output_text: ["type", "text", "annotations", "logprobs"],
  refusal: ["type", "refusal"],
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** OpenAI's reasoning models: they refuse sampling parameters and accept `reasoning`. */
export function isReasoningModelName(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model);
}

function fail(message: string, param: string | null, code: string | null = "invalid_value"): OpenAiError {
  return { error: { message, type: "invalid_request_error", param, code } };
}

function unknownKey(
  value: Record<string, unknown>,
  allowed: string[],
  path: string,
): OpenAiError | undefined {
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  return extra === undefined
    ? undefined
    : fail(`Unknown parameter: '${path}.${extra}'.`, `${path}.${extra}`, "unknown_parameter");
}

function checkParts(parts: unknown, role: string, path: string): OpenAiError | undefined {
  if (typeof parts === "string") return undefined;
  if (!Array.isArray(parts)) return fail(`Invalid type for '${path}': expected a string or an array.`, path);
  const allowed = role === "assistant"
    ? ["output_text", "refusal"]
    : ["input_text", "input_image", "input_file"];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const at = `${path}[${i}]`;
    if (!isObject(part) || !allowed.includes(String(part.type))) {
      return fail(
        `Invalid value: '${isObject(part) ? part.type : part}'. Supported values are: ${allowed}.`,
        `${at}.type`,
      );
    }
    const extra = unknownKey(part, PART_KEYS[part.type as string], at);
    if (extra) return extra;
    if ((part.type === "input_text" || part.type === "output_text") && typeof part.text !== "string") {
      return fail(`Missing required parameter: '${at}.text'.`, `${at}.text`, "missing_required_parameter");
    }
    if (part.type === "input_image" && typeof part.image_url !== "string") {
      return fail(
        `Missing required parameter: '${at}.image_url'.`,
        `${at}.image_url`,
        "missing_required_parameter",
      );
    }
    if (part.type === "input_image" && !["auto", "low", "high", undefined].includes(part.detail as string)) {
      return fail(`Invalid value: '${part.detail}'.`, `${at}.detail`);
    }
    if (part.type === "input_file" && part.file_data !== undefined && typeof part.filename !== "string") {
      return fail(
        `Missing required parameter: '${at}.filename'.`,
        `${at}.filename`,
        "missing_required_parameter",
      );
    }
  }
  return undefined;
}

function checkItem(item: unknown, i: number, calls: Set<string>, store: boolean): OpenAiError | undefined {
  const path = `input[${i}]`;
  if (!isObject(item)) return fail(`Invalid type for '${path}': expected an object.`, path);
  const type = item.type ?? (item.role ? "message" : undefined);
  if (typeof type !== "string" || !ITEM_KEYS[type]) {
    return fail(
      `Invalid value: '${item.type}'. Supported values are: message, function_call, ...`,
      `${path}.type`,
    );
  }
  const extra = unknownKey(item, ITEM_KEYS[type], path);
  if (extra) return extra;
  if (type === "message") {
    if (!["user", "assistant", "system", "developer"].includes(String(item.role))) {
      return fail(`Invalid value: '${item.role}'.`, `${path}.role`);
    }
    return checkParts(item.content, String(item.role), `${path}.content`);
  }
  if (type === "function_call") {
    for (const key of ["call_id", "name", "arguments"]) {
      if (typeof item[key] !== "string") {
        return fail(
          `Missing required parameter: '${path}.${key}'.`,
          `${path}.${key}`,
          "missing_required_parameter",
        );
      }
    }
    calls.add(item.call_id as string);
    return undefined;
  }
  if (type === "function_call_output") {
    if (typeof item.call_id !== "string" || !calls.has(item.call_id)) {
      return fail(`No tool call found for function call output with call_id ${item.call_id}.`, "input");
    }
    return typeof item.output === "string" ? undefined : checkParts(item.output, "tool", `${path}.output`);
  }
  if (typeof item.id !== "string" || !item.id.startsWith("rs_") || !Array.isArray(item.summary)) {
    return fail(
      `Missing required parameter: '${path}.summary'.`,
      `${path}.summary`,
      "missing_required_parameter",
    );
  }
  if (!store && typeof item.encrypted_content !== "string") {
    return {
      error: {
        message:
          `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false.`,
        type: "invalid_request_error",
        param: "input",
        code: null,
      },
    };
  }
  return undefined;
}

/** Strict schemas: every object closed, every property required (OpenAI's structured-outputs subset). */
function strictSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema) || schema.type !== "object") return undefined;
  if (schema.additionalProperties !== false) {
    return "In context=(), 'additionalProperties' is required to be supplied and to be false.";
  }
  const properties = Object.keys(isObject(schema.properties) ? schema.properties : {});
  const required = Array.isArray(schema.required) ? schema.required : [];
  const missing = properties.find((p) => !required.includes(p));
  return missing
    ? `In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`
    : undefined;
}

function checkTools(tools: unknown): OpenAiError | undefined {
  if (!Array.isArray(tools)) return fail("Invalid type for 'tools': expected an array.", "tools");
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i];
    const path = `tools[${i}]`;
    if (!isObject(tool) || tool.type !== "function") {
      return fail("Invalid value for tool type.", `${path}.type`);
    }
    const extra = unknownKey(tool, ["type", "name", "description", "parameters", "strict"], path);
    if (extra) return extra;
    if (typeof tool.name !== "string" || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) {
      return fail(`Invalid '${path}.name': string does not match pattern.`, `${path}.name`);
    }
    // Responses functions are strict unless `strict: false`.
    const problem = tool.strict === false ? undefined : strictSchemaProblem(tool.parameters);
    if (problem) return fail(`Invalid schema for function '${tool.name}': ${problem}`, `${path}.parameters`);
  }
  return undefined;
}

function checkText(text: unknown): OpenAiError | undefined {
  if (!isObject(text)) return fail("Invalid type for 'text': expected an object.", "text");
  const extra = unknownKey(text, ["format", "verbosity"], "text");
  if (extra) return extra;
  const format = text.format;
  if (format === undefined) return undefined;
  if (!isObject(format) || !["text", "json_schema", "json_object"].includes(String(format.type))) {
    return fail("Invalid value for 'text.format.type'.", "text.format.type");
  }
  if (format.type !== "json_schema") return undefined;
  const formatExtra = unknownKey(format, ["type", "name", "schema", "strict", "description"], "text.format");
  if (formatExtra) return formatExtra;
  if (typeof format.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(format.name)) {
    return fail(
      "Missing required parameter: 'text.format.name'.",
      "text.format.name",
      "missing_required_parameter",
    );
  }
  if (!isObject(format.schema)) return fail("Invalid type for 'text.format.schema'.", "text.format.schema");
  return undefined;
}

function checkSampling(body: Record<string, unknown>, reasoningModel: boolean): OpenAiError | undefined {
  for (const [key, max] of [["temperature", 2], ["top_p", 1]] as const) {
    if (body[key] === undefined) continue;
    if (reasoningModel) {
      return fail(
        `Unsupported parameter: '${key}' is not supported with this model.`,
        key,
        "unsupported_parameter",
      );
    }
    const value = body[key];
    if (typeof value !== "number" || value < 0 || value > max) return fail(`Invalid '${key}'.`, key);
  }
  return undefined;
}

function checkReasoning(body: Record<string, unknown>, reasoningModel: boolean): OpenAiError | undefined {
  const include = body.include;
  if (include !== undefined) {
    if (!Array.isArray(include) || include.some((v) => !INCLUDABLE.has(v))) {
      return fail("Invalid value for 'include'.", "include");
    }
    if (include.includes("reasoning.encrypted_content") && !reasoningModel) {
      return fail("Encrypted content is not supported with this model.", "include", "unsupported_parameter");
    }
  }
  if (body.reasoning === undefined) return undefined;
  if (!reasoningModel) {
    return fail(
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
      "reasoning.effort",
      "unsupported_parameter",
    );
  }
  const reasoning = body.reasoning;
  if (!isObject(reasoning)) return fail("Invalid type for 'reasoning'.", "reasoning");
  const extra = unknownKey(reasoning, ["effort", "summary", "generate_summary"], "reasoning");
  if (extra) return extra;
  if (
    reasoning.effort !== undefined && !["minimal", "low", "medium", "high"].includes(String(reasoning.effort))
  ) {
    return fail(`Invalid value: '${reasoning.effort}'.`, "reasoning.effort");
  }
  if (
    reasoning.summary !== undefined && !["auto", "concise", "detailed"].includes(String(reasoning.summary))
  ) {
    return fail(`Invalid value: '${reasoning.summary}'.`, "reasoning.summary");
  }
  return undefined;
}

function checkToolChoice(choice: unknown): OpenAiError | undefined {
  if (choice === undefined || ["auto", "none", "required"].includes(choice as string)) return undefined;
  if (isObject(choice) && choice.type === "function" && typeof choice.name === "string") {
    return unknownKey(choice, ["type", "name"], "tool_choice");
  }
  return fail(`Invalid value: '${JSON.stringify(choice)}'.`, "tool_choice");
}

/** Checks a `POST /v1/responses` body as OpenAI would. */
export function validateResponsesRequest(body: Record<string, unknown>): OpenAiError | undefined {
  const extra = Object.keys(body).find((k) => !TOP_LEVEL.has(k));
  if (extra) return fail(`Unknown parameter: '${extra}'.`, extra, "unknown_parameter");
  if (typeof body.model !== "string") {
    return fail("Missing required parameter: 'model'.", "model", "missing_required_parameter");
  }
  const reasoningModel = isReasoningModelName(body.model);
  const max = body.max_output_tokens;
  if (max !== undefined && (!Number.isInteger(max) || (max as number) < 16)) {
    return fail(
      `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${max} instead.`,
      "max_output_tokens",
      "integer_below_min_value",
    );
  }
  if (body.instructions !== undefined && typeof body.instructions !== "string") {
    return fail("Invalid type for 'instructions'.", "instructions");
  }
  if (body.safety_identifier !== undefined && String(body.safety_identifier).length > 64) {
    return fail(
      "Invalid 'safety_identifier': string too long.",
      "safety_identifier",
      "string_above_max_length",
    );
  }
  for (const key of ["stream", "store", "parallel_tool_calls"]) {
    if (body[key] !== undefined && typeof body[key] !== "boolean") {
      return fail(`Invalid type for '${key}'.`, key);
    }
  }
  const input = body.input;
  if (typeof input !== "string") {
    if (!Array.isArray(input)) return fail("Invalid type for 'input'.", "input");
    const calls = new Set<string>();
    for (let i = 0; i < input.length; i++) {
      const problem = checkItem(input[i], i, calls, body.store === false);
      if (problem) return problem;
    }
  }
  return checkSampling(body, reasoningModel) ?? checkReasoning(body, reasoningModel) ??
    (body.tools === undefined ? undefined : checkTools(body.tools)) ??
    (body.text === undefined ? undefined : checkText(body.text)) ?? checkToolChoice(body.tool_choice);
}
