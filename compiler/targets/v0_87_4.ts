/**
 * gh-aw v0.87.4 (2026-08): the action pins and tags of its locks (its `actions-lock.json` and the locks of
 * gh-aw-mcpg compiled by it).
 */
import type { GhAwTarget } from "./target.ts";

/** The v0.87.4 target. */
export const V0_87_4: GhAwTarget = {
  version: "v0.87.4",
  pins: {
    "actions/cache/restore@v6.1.0": "55cc8345863c7cc4c66a329aec7e433d2d1c52a9",
    "actions/cache/save@v6.1.0": "55cc8345863c7cc4c66a329aec7e433d2d1c52a9",
    "actions/cache@v6.1.0": "55cc8345863c7cc4c66a329aec7e433d2d1c52a9",
    "actions/checkout@v7.0.1": "3d3c42e5aac5ba805825da76410c181273ba90b1",
    "actions/setup-go@v7.0.0": "b7ad1dad31e06c5925ef5d2fc7ad053ef454303e",
    "actions/setup-node@v7.0.0": "820762786026740c76f36085b0efc47a31fe5020",
    "actions/setup-python@v7.0.0": "5fda3b95a4ea91299a34e894583c3862153e4b97",
    "docker/build-push-action@v7.3.0": "53b7df96c91f9c12dcc8a07bcb9ccacbed38856a",
    "docker/setup-buildx-action@v4.3.0": "37fe631027851001ddb9b187196cc803df7f5f0e",
    "github/codeql-action/upload-sarif@v4.37.8": "db488ddef3bf6cb639b32c2e9a7c0a7ea8271d28",
    "github/gh-aw-actions/setup-cli@v0.87.4": "ea4b911d44a5336c74325a122a5fd9110b45ff06",
    "github/gh-aw-actions/setup@v0.87.4": "ea4b911d44a5336c74325a122a5fd9110b45ff06",
  },
  actionTags: {
    "actions/cache": "v6.1.0",
    "actions/cache/restore": "v6.1.0",
    "actions/cache/save": "v6.1.0",
    "actions/checkout": "v7.0.1",
    "actions/setup-go": "v7.0.0",
    "actions/setup-node": "v7.0.0",
    "actions/setup-python": "v7.0.0",
    "docker/build-push-action": "v7.3.0",
    "docker/setup-buildx-action": "v4.3.0",
    "github/codeql-action/upload-sarif": "v4.37.8",
  },
  setupCliAction: "github/gh-aw-actions/setup-cli",
  stampsCompilerVersion: true,
  queueWorkflowRuns: true,
  awf: "v0.28.4",
  emit: {
    helperRequire: "path-join",
    indentOnSequences: true,
    trimTrailingWhitespace: true,
    generatedLineFirst: true,
  },
};
