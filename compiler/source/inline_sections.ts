/**
 * Inline sub-agent and skill sections of a workflow body: from the first `## agent: \`name\`` or
 * `## skill: \`name\`` heading on, the markdown defines sections rather than the main prompt.
 */

/**
 * A section heading names its agent or skill in backticks. gh-aw does not track code fences here: a heading
 * inside a fenced example starts a section too, unless its name is a placeholder such as `<agent-name>`.
 */
const SECTION_HEADING = /^## (?:agent|skill): `[A-Za-z0-9][\w.-]*`\s*$/m;

/** The body up to its first inline `## agent:` / `## skill:` section (the whole body when it has none). */
export function bodyBeforeInlineSections(body: string): string {
  const at = SECTION_HEADING.exec(body);
  return at ? body.slice(0, at.index) : body;
}
