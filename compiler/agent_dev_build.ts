/**
 * `tools.agentic-workflows` when gh-aw compiles its own repository (dev action mode): the agent's gh-aw MCP
 * server must run the CLI of the checked-out commit, so the job builds the binary and its container image from
 * source instead of installing a release.
 */
import type { StepPlan } from "./plan_types.ts";
import { lit, plain } from "./yaml_writer.ts";

/** Pinned actions the build uses. */
export interface DevBuildRefs {
  setupGo: string;
  setupBuildx: string;
  buildPush: string;
}

/** Steps right after the checkout: build the CLI binary and the local `gh-aw:dev` image. */
export function devCliBuildSteps(refs: DevBuildRefs): StepPlan[] {
  return [
    {
      name: "Setup Go for CLI build",
      uses: plain(refs.setupGo),
      with: { "go-version-file": "go.mod", cache: true },
    },
    {
      name: "Build gh-aw CLI",
      run: lit(
        'echo "Building gh-aw CLI for linux/amd64..."\nmkdir -p dist\nVERSION=$(git describe --tags --always --dirty)\n' +
          "CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build \\\n" +
          '  -ldflags "-s -w -X main.version=${VERSION}" \\\n' +
          "  -o dist/gh-aw-linux-amd64 \\\n  ./cmd/gh-aw\n" +
          "# Copy binary to root for direct execution in user-defined steps\n" +
          "cp dist/gh-aw-linux-amd64 ./gh-aw\nchmod +x ./gh-aw\n" +
          'echo "✓ Built gh-aw CLI successfully"\n',
      ),
    },
    { name: "Setup Docker Buildx", uses: plain(refs.setupBuildx) },
    {
      name: "Build gh-aw Docker image",
      uses: plain(refs.buildPush),
      with: {
        context: ".",
        platforms: "linux/amd64",
        push: false,
        load: true,
        tags: "localhost/gh-aw:dev",
        "build-args": lit("BINARY=dist/gh-aw-linux-amd64\n"),
      },
    },
  ];
}

/** Steps before the MCP servers start: install the built CLI as a `gh` extension and stage its binary. */
export function devCliInstallSteps(): StepPlan[] {
  return [
    {
      name: "Build and install gh-aw CLI from source",
      run: lit("gh extension remove aw || true\nmake build\ngh extension install .\ngh aw version\n"),
      env: { GH_TOKEN: plain("${{ github.token }}") },
    },
    {
      name: "Copy gh-aw binary for MCP server",
      run: lit(
        "gh aw --version\n" +
          "# Copy the gh-aw binary to ${RUNNER_TEMP}/gh-aw for MCP server containerization\n" +
          'mkdir -p "${RUNNER_TEMP}/gh-aw"\nGH_AW_BIN=""\n' +
          "GH_AW_BIN=$(command -v gh-aw 2>/dev/null) || true\n" +
          'if [ -z "$GH_AW_BIN" ]; then\n' +
          "  GH_AW_BIN=$(find \"${HOME}/.local/share/gh/extensions/gh-aw\" -name 'gh-aw' -type f 2>/dev/null | head -1) || true\nfi\n" +
          'if [ -z "$GH_AW_BIN" ] && [ -n "${GH_CONFIG_DIR:-}" ]; then\n' +
          "  GH_AW_BIN=$(find \"${GH_CONFIG_DIR}/extensions/gh-aw\" -name 'gh-aw' -type f 2>/dev/null | head -1) || true\nfi\n" +
          'if [ -z "$GH_AW_BIN" ] && [ -f "${GITHUB_WORKSPACE}/gh-aw" ]; then\n  GH_AW_BIN="${GITHUB_WORKSPACE}/gh-aw"\nfi\n' +
          'if [ -n "$GH_AW_BIN" ] && [ -f "$GH_AW_BIN" ]; then\n' +
          '  cp "$GH_AW_BIN" "${RUNNER_TEMP}/gh-aw/gh-aw"\n  chmod +x "${RUNNER_TEMP}/gh-aw/gh-aw"\n' +
          '  echo "Copied gh-aw binary to ${RUNNER_TEMP}/gh-aw/gh-aw"\nelse\n' +
          '  echo "::error::Failed to find gh-aw binary for MCP server"\n  exit 1\nfi\n',
      ),
    },
  ];
}
