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

/** The longest body the runtime accepts. */
export const BODY_MAX = 65000;
/** Marks a field required. */
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
/** A string from a fixed set. */
export const oneOf = (values: string[], extra: FieldRule = {}): FieldRule => ({
  type: "string",
  enum: values,
  ...extra,
});
/** A pattern with the message shown when it fails. */
export const pattern = (p: string, error: string): FieldRule => ({ pattern: p, patternError: error });
/** An `owner/repo` target. */
export const REPO = rawString(256);
/** A required Markdown body. */
export const BODY = text(BODY_MAX, req);
/** An optional Markdown body. */
export const OPT_BODY = text(BODY_MAX);
/** An issue or pull request number. */
export const ISSUE_OR_PR: FieldRule = { issueOrPRNumber: true };
/** An issue number or a temporary id of an item created in the same run. */
export const ISSUE_OR_TEMP: FieldRule = { issueNumberOrTemporaryId: true };
/** An optional positive integer. */
export const OPT_POSITIVE: FieldRule = { optionalPositiveInteger: true };
/** A required positive integer. */
export const POSITIVE: FieldRule = { required: true, positiveInteger: true };
/** An identifier: letters, digits, `-` and `_`. */
export const ID_PATTERN = pattern(
  "^[a-zA-Z0-9_-]+$",
  "must contain only alphanumeric characters, hyphens, and underscores",
);
/** A full GitHub project URL. */
export const PROJECT_URL = text(512, {
  required: true,
  ...pattern(
    "^https://[^/]+/(orgs|users)/[^/]+/projects/\\d+",
    "must be a full GitHub project URL (e.g., https://github.com/orgs/myorg/projects/42)",
  ),
});
/** A `YYYY-MM-DD` date. */
export const DATE = rawString(undefined, pattern("^\\d{4}-\\d{2}-\\d{2}$", "must be in YYYY-MM-DD format"));
/** How an update combines with the existing text. */
export const REPLACE_OPS = ["replace", "append", "prepend"];
