/**
 * The config-file fields of the cloud provider types (`bedrock`, `vertex`), kept apart from cloud.ts
 * (which resolves them) so the file schema can include them without importing the resolution.
 */
import { z } from "zod";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Fields only `bedrock` and `vertex` entries take; cloud.ts checks which type takes which. */
export const CLOUD_ENTRY_FIELDS = {
  /** The AWS region (`us-east-1`) or Google Cloud location (`us-east5`, `global`). */
  region: z.string().regex(/^(?:global|[a-z]{2,}(?:-[a-z]+)+-?\d+)$/, {
    error: "expected a region such as us-east-1 (AWS) or us-east5 / global (Google Cloud)",
  }).optional(),
  /** The Google Cloud project (vertex); the service account's `project_id` when absent. */
  project: z.string().regex(/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/, { error: "expected a project id" }).optional(),
  /** A service-account JSON key file (vertex); GOOGLE_APPLICATION_CREDENTIALS when absent. */
  credentials_file: z.string().min(1).optional(),
  /** An environment variable holding an OAuth access token (vertex), used instead of a service account. */
  access_token_env: z.string().regex(ENV_NAME, { error: "expected an environment variable name" }).optional(),
};

/** Names of the cloud-only fields. */
export const CLOUD_FIELD_NAMES = Object.keys(CLOUD_ENTRY_FIELDS) as Array<keyof typeof CLOUD_ENTRY_FIELDS>;
