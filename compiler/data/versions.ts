/** Versions of the AWF firewall, the MCP gateway and the containers the lock references (one table). */

/** AWF (firewall) version and MCP gateway/container versions the lock references. */
export const VERSIONS = {
  awf: "v0.25.58",
  awfImageTag: "0.25.58",
  mcpg: "v0.3.22",
  githubMcp: "v1.1.0",
  nodeImage: "node:lts-alpine@sha256:2bdb65ed1dab192432bc31c95f94155ca5ad7fc1392fb7eb7526ab682fa5bf14",
  /** The gh-aw release a release-mode lock runs with (its setup action is pinned at this tag). */
  ghAwRelease: "v0.76.1",
};
