/** Files written by `awc init`, embedded in the module graph so the standalone binary needs no data files. */
import { AWC_RELEASES_REPO } from "../version.ts";

/** The `.gitattributes` line marking lock files as generated. */
export const GITATTRIBUTES_LINE = ".github/workflows/*.lock.yml linguist-generated=true merge=ours";

/** Engines `init --engine` accepts. */
export const ENGINES = ["copilot", "claude", "codex", "gemini", "crush"] as const;

/** `.github/aw/README.md`: what the folder holds, including the Dependabot note. */
export const AW_README = `# Agentic workflows

Workflows are Markdown files in \`.github/workflows/\` (YAML frontmatter + instructions). \`awc compile\`
writes a \`<name>.lock.yml\` beside each one: commit both. The Markdown body is loaded at run time, so
body-only edits need no recompile; frontmatter edits do (\`awc compile --check\` tells).

- \`actions-lock.json\`: the action tag → commit SHA cache used to pin every \`uses:\`. Managed only by
  \`awc compile\` and \`awc update-actions\`; never edit it or the pins in lock files by hand.
- \`imports/\`: cached remote imports.

## Dependabot

Lock files pin actions by commit SHA on purpose. Tell Dependabot to leave them alone, e.g. in
\`.github/dependabot.yml\` under the \`github-actions\` ecosystem:

\`\`\`yaml
    ignore:
      - dependency-name: "*"   # pins in *.lock.yml are managed by \`awc update-actions\`
\`\`\`

or keep agentic lock files out of its \`directories\`. Update pins with \`awc update-actions\`.
`;

/** Custom agent file for the Copilot coding agent. */
const COPILOT_AGENT = `---
description: Creates and updates GitHub agentic workflows compiled with awc
---

You help write agentic workflows: Markdown files in \`.github/workflows/\` with YAML frontmatter (\`on\`,
\`permissions\`, \`engine\`, \`tools\`, \`safe-outputs\`, \`network\`) and natural-language instructions.

After editing a workflow's frontmatter run \`awc compile\` (or \`gh awc compile\`) and commit the
\`.lock.yml\` it writes. Never edit \`.lock.yml\` files or \`.github/aw/actions-lock.json\` by hand.
Check with \`awc compile --check\`.
`;

/** Copilot coding agent setup steps installing awc. */
const COPILOT_SETUP_STEPS = `name: "Copilot Setup Steps"

on:
  workflow_dispatch:
  push:
    paths:
      - .github/workflows/copilot-setup-steps.yml

jobs:
  copilot-setup-steps:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - name: Install awc
        run: gh extension install ${AWC_RELEASES_REPO}
        env:
          GH_TOKEN: \${{ github.token }}
`;

/** Claude Code sub-agent file. */
const CLAUDE_AGENT = `---
name: agentic-workflows
description: Creates and updates GitHub agentic workflows compiled with awc
---

${COPILOT_AGENT.split("---\n").slice(2).join("---\n").trim()}
`;

/** Files per engine, relative to the repository root. */
export const ENGINE_FILES: Record<(typeof ENGINES)[number], Record<string, string>> = {
  copilot: {
    ".github/agents/agentic-workflows.md": COPILOT_AGENT,
    ".github/workflows/copilot-setup-steps.yml": COPILOT_SETUP_STEPS,
  },
  claude: { ".claude/agents/agentic-workflows.md": CLAUDE_AGENT },
  codex: {},
  gemini: {},
  crush: {},
};
