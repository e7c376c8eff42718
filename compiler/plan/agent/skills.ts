/**
 * `skills:`: agent skills (folders with a `SKILL.md`) installed into the engine's skills folder before the agent
 * runs. An item is a repository path (`skills/jq` or `.github/skills/jq`, copied from the checked-out workspace)
 * or a pinned reference `owner/repo/path@<40-hex commit>` (fetched at that commit, so it cannot change under
 * the workflow).
 */
import type { StepPlan } from "../types.ts";
import { dq, lit, plain } from "../../yaml/writer.ts";

/** One skill to install. */
export type SkillRef =
  | { kind: "local"; path: string; name: string }
  | { kind: "remote"; owner: string; repo: string; path: string; sha: string; name: string };

const REMOTE = /^([\w.-]+)\/([\w.-]+)\/([\w./-]+)@([0-9a-f]{40})$/;
const LOCAL = /^\.?[\w-][\w./-]*$/;

/** Parses one `skills:` item, or returns why it is invalid. */
export function parseSkill(item: string): SkillRef | string {
  const clean = item.replace(/\/SKILL\.md$/, "").replace(/\/+$/, "");
  const remote = REMOTE.exec(clean);
  if (remote) {
    const [, owner, repo, path, sha] = remote;
    return { kind: "remote", owner, repo, path, sha, name: path.split("/").pop()! };
  }
  if (clean.includes("@")) {
    return `skill "${item}" must be pinned to a full 40-hex commit SHA (owner/repo/path@<sha>)`;
  }
  if (!LOCAL.test(clean) || clean.split("/").includes("..")) {
    return `skill "${item}" must be a path inside the repository or owner/repo/path@<sha>`;
  }
  return { kind: "local", path: clean, name: clean.split("/").pop()! };
}

/** The step that installs the skills into `skillDir` (the engine's skills folder). */
export function skillInstallSteps(skills: SkillRef[], skillDir: string): StepPlan[] {
  if (skills.length === 0) return [];
  const lines = ['mkdir -p "$GH_AW_SKILL_DIR"'];
  for (const s of skills) {
    const dest = `"$GH_AW_SKILL_DIR/${s.name}"`;
    if (s.kind === "local") {
      lines.push(`rm -rf ${dest}`, `cp -R "${s.path}" ${dest}`);
    } else {
      // The tarball's single top folder is <repo>-<sha>; keep only the skill's folder.
      const depth = s.path.split("/").length;
      lines.push(
        `rm -rf ${dest} && mkdir -p ${dest}`,
        `gh api "repos/${s.owner}/${s.repo}/tarball/${s.sha}" | tar -xz -C ${dest} --strip-components=${
          depth + 1
        } --wildcards "*/${s.path}/*"`,
      );
    }
    lines.push(`test -f ${dest}/SKILL.md || { echo "::error::skill ${s.name} has no SKILL.md"; exit 1; }`);
  }
  return [{
    name: "Install skills",
    env: { GH_AW_SKILL_DIR: dq(skillDir), GH_TOKEN: plain("${{ github.token }}") },
    run: lit(lines.join("\n") + "\n"),
  }];
}
