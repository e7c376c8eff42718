/**
 * Every safe-output type, listed once, in the order gh-aw offers their tools to the agent (the types it
 * offers no ordered tool for follow, in name order). Adding a type: its module and a line here (and its key
 * as a `type` in `source/frontmatter_keys.ts`'s SAFE_OUTPUT_KEY_KINDS, which `registry_test.ts` checks against this list).
 */
import type { SafeOutputType } from "./contract.ts";
import { addComment } from "./add_comment.ts";
import { callWorkflow } from "./call_workflow.ts";
import { updateRelease } from "./update_release.ts";
import { assignToUser } from "./assign_to_user.ts";
import { createIssue } from "./create_issue.ts";
import { closeDiscussion } from "./close_discussion.ts";
import { closeIssue } from "./close_issue.ts";
import { updateIssue } from "./update_issue.ts";
import { createDiscussion } from "./create_discussion.ts";
import { updateDiscussion } from "./update_discussion.ts";
import { assignToAgent } from "./assign_to_agent.ts";
import { createAgentSession } from "./create_agent_session.ts";
import { createPullRequest } from "./create_pull_request.ts";
import { closePullRequest } from "./close_pull_request.ts";
import { updatePullRequest } from "./update_pull_request.ts";
import { createPullRequestReviewComment } from "./create_pull_request_review_comment.ts";
import { submitPullRequestReview } from "./submit_pull_request_review.ts";
import { replyToPullRequestReviewComment } from "./reply_to_pull_request_review_comment.ts";
import { resolvePullRequestReviewThread } from "./resolve_pull_request_review_thread.ts";
import { addLabels } from "./add_labels.ts";
import { addReviewer } from "./add_reviewer.ts";
import { removeLabels } from "./remove_labels.ts";
import { uploadAsset } from "./upload_asset.ts";
import { uploadArtifact } from "./upload_artifact.ts";
import { pushToPullRequestBranch } from "./push_to_pull_request_branch.ts";
import { unassignFromUser } from "./unassign_from_user.ts";
import { assignMilestone } from "./assign_milestone.ts";
import { updateProject } from "./update_project.ts";
import { createProject } from "./create_project.ts";
import { createCodeScanningAlert } from "./create_code_scanning_alert.ts";
import { autofixCodeScanningAlert } from "./autofix_code_scanning_alert.ts";
import { linkSubIssue } from "./link_sub_issue.ts";
import { hideComment } from "./hide_comment.ts";
import { createProjectStatusUpdate } from "./create_project_status_update.ts";
import { createCheckRun } from "./create_check_run.ts";
import { setIssueField } from "./set_issue_field.ts";
import { setIssueType } from "./set_issue_type.ts";
import { commentMemory } from "./comment_memory.ts";
import { mergePullRequest } from "./merge_pull_request.ts";
import { markPullRequestAsReadyForReview } from "./mark_pull_request_as_ready_for_review.ts";
import { dispatchWorkflow } from "./dispatch_workflow.ts";
import { dispatchRepository } from "./dispatch_repository.ts";
import { createAgentTask } from "./create_agent_task.ts";
import { missingData } from "./missing_data.ts";
import { missingTool } from "./missing_tool.ts";
import { noop } from "./noop.ts";
import { reportIncomplete } from "./report_incomplete.ts";

/** All types, in tool order. */
export const SAFE_OUTPUT_TYPES: readonly SafeOutputType[] = [
  addComment,
  callWorkflow,
  updateRelease,
  assignToUser,
  createIssue,
  closeDiscussion,
  closeIssue,
  updateIssue,
  createDiscussion,
  updateDiscussion,
  assignToAgent,
  createAgentSession,
  createPullRequest,
  closePullRequest,
  updatePullRequest,
  createPullRequestReviewComment,
  submitPullRequestReview,
  replyToPullRequestReviewComment,
  resolvePullRequestReviewThread,
  addLabels,
  addReviewer,
  removeLabels,
  uploadAsset,
  uploadArtifact,
  pushToPullRequestBranch,
  unassignFromUser,
  assignMilestone,
  updateProject,
  createProject,
  createCodeScanningAlert,
  autofixCodeScanningAlert,
  linkSubIssue,
  hideComment,
  createProjectStatusUpdate,
  createCheckRun,
  setIssueField,
  setIssueType,
  commentMemory,
  mergePullRequest,
  markPullRequestAsReadyForReview,
  dispatchWorkflow,
  dispatchRepository,
  createAgentTask,
  missingData,
  missingTool,
  noop,
  reportIncomplete,
];

const byKey = new Map(SAFE_OUTPUT_TYPES.map((type) => [type.key, type]));

/** The type registered under a `safe-outputs:` key, if any. */
export function safeOutputType(key: string): SafeOutputType | undefined {
  return byKey.get(key);
}
