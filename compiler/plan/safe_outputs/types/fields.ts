/**
 * Building blocks of the runtime's field validation (`GH_AW_VALIDATION_JSON`): rule shapes and the field
 * kinds the safe-output types share. The values are the gh-aw v0.76 runtime contract, learned from the
 * corpus locks.
 */
/** Validation rules of one field. Keys are written in {@link FIELD_KEY_ORDER}. */
export interface FieldRule {
  required?: true;
  type?: "string" | "array" | "boolean" | "object" | "[]string";
  sanitize?: true;
  maxLength?: number;
  minLength?: number;
  positiveInteger?: true;
  optionalPositiveInteger?: true;
  issueOrPRNumber?: true;
  issueNumberOrTemporaryId?: true;
  enum?: string[];
  itemType?: "string";
  itemSanitize?: true;
  itemMaxLength?: number;
  pattern?: string;
  patternError?: string;
}

/** Validation of one safe-output type. */
export interface TypeRule {
  defaultMax: number;
  fields: Record<string, FieldRule>;
  /** A cross-field rule the runtime knows by name (`requiresOneOf:a,b`, `parentAndSubDifferent`, …). */
  customValidation?: string;
}

/** The order in which the runtime contract lists a field's rule keys. */
export const FIELD_KEY_ORDER: readonly (keyof FieldRule)[] = [
  "required",
  "type",
  "sanitize",
  "maxLength",
  "minLength",
  "positiveInteger",
  "optionalPositiveInteger",
  "issueOrPRNumber",
  "issueNumberOrTemporaryId",
  "enum",
  "itemType",
  "itemSanitize",
  "itemMaxLength",
  "pattern",
  "patternError",
];

export const BODY_MAX = 65000;
export const req = { required: true } as const;
/** Sanitized text up to `max` characters. */
export const text = (max: number, extra: FieldRule = {}): FieldRule => ({
  type: "string",
  sanitize: true,
  maxLength: max,
  ...extra,
});
/** Unsanitized string, optionally bounded. */
export const rawString = (max?: number, extra: FieldRule = {}): FieldRule => ({
  type: "string",
  ...(max ? { maxLength: max } : {}),
  ...extra,
});
/** A list of sanitized strings, each up to `max` characters. */
export const list = (max: number, extra: FieldRule = {}): FieldRule => ({
  type: "array",
  itemType: "string",
  itemSanitize: true,
  itemMaxLength: max,
  ...extra,
});
export const oneOf = (values: string[], extra: FieldRule = {}): FieldRule => ({
  type: "string",
  enum: values,
  ...extra,
});
export const pattern = (p: string, error: string): FieldRule => ({ pattern: p, patternError: error });
export const REPO = rawString(256);
export const BODY = text(BODY_MAX, req);
export const OPT_BODY = text(BODY_MAX);
export const ISSUE_OR_PR: FieldRule = { issueOrPRNumber: true };
export const ISSUE_OR_TEMP: FieldRule = { issueNumberOrTemporaryId: true };
export const OPT_POSITIVE: FieldRule = { optionalPositiveInteger: true };
export const POSITIVE: FieldRule = { required: true, positiveInteger: true };
export const ID_PATTERN = pattern(
  "^[a-zA-Z0-9_-]+$",
  "must contain only alphanumeric characters, hyphens, and underscores",
);
export const PROJECT_URL = text(512, {
  required: true,
  ...pattern(
    "^https://[^/]+/(orgs|users)/[^/]+/projects/\\d+",
    "must be a full GitHub project URL (e.g., https://github.com/orgs/myorg/projects/42)",
  ),
});
export const DATE = rawString(undefined, pattern("^\\d{4}-\\d{2}-\\d{2}$", "must be in YYYY-MM-DD format"));
export const REPLACE_OPS = ["replace", "append", "prepend"];
