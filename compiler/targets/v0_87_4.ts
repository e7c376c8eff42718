/**
 * gh-aw v0.87.4 (2026-08): the action pins and tags of its locks (its `actions-lock.json` and the locks of
 * gh-aw-mcpg compiled by it).
 */
import type { GhAwTarget } from "./target.ts";
import { MODEL_ALIASES_V0_87_4 } from "./v0_87_4_models.ts";
import { VALIDATION_V0_87_4 } from "./v0_87_4_validation.ts";

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
  // Digests of these come from the repository's `actions-lock.json` `containers`.
  components: { mcpg: "v0.4.10", githubMcp: "v1.10.0", nodeImage: "ghcr.io/github/gh-aw-node" },
  stampsCompilerVersion: true,
  engines: {
    copilot: {
      version: "1.0.80",
      defaultModel: "${{ vars.GH_AW_MODEL_AGENT_COPILOT || vars.GH_AW_DEFAULT_MODEL_COPILOT || 'auto' }}",
      agentConfig: { folders: [".agents", ".github"], files: ["AGENTS.md"] },
      instructionFiles: ["AGENTS.md"],
      installByCompiledVersion: true,
      errorsByScript: true,
      harnessedRun: true,
      // The Copilot CLI is no longer installed from npm.
      domains: [
        "api.business.githubcopilot.com",
        "api.enterprise.githubcopilot.com",
        "api.github.com",
        "api.githubcopilot.com",
        "api.individual.githubcopilot.com",
        "github.com",
        "host.docker.internal",
        "raw.githubusercontent.com",
        "telemetry.enterprise.githubcopilot.com",
      ],
    },
  },
  ecosystemHosts: { github: ["patchdiff.githubusercontent.com"] },
  frontmatterKeys: [
    "max-ai-credits",
    "max-daily-ai-credits",
    "model",
    "safe-inputs",
    "excluded-env",
    "max-turn-cache-misses",
  ],
  // In v0.87.4's schema (gh-aw PR #42371, 2026-06-29; daemon-visible paths after issue #42807), but its
  // compiled form at v0.87.4 could not be read here (see docs/compiler-differences.md "`runner` under v0.87.4").
  uncompiledKeys: {
    "runner": "`runner.topology: arc-dind` makes v0.87.4 rewrite the agent job for an ARC runner with a " +
      "Docker-in-Docker sidecar (tool cache and install paths redirected under `${RUNNER_TEMP}/gh-aw`, extra " +
      "daemon-visible mounts, the prompts and the engine's HOME moved there, a check that no step needs " +
      "root, AWF v0.27.20 or later); no v0.87.4 lock and no copy of gh-aw's source at v0.87.4 was reachable " +
      "to reproduce that form, so awc refuses rather than emit a run that would fail on ARC — compile for " +
      "GitHub-hosted or standard self-hosted runners without `runner:`",
  },
  queueWorkflowRuns: true,
  otelAttributeEncoding: "percent",
  awf: "v0.28.4",
  emit: {
    helperRequire: "path-join",
    indentOnSequences: true,
    trimTrailingWhitespace: true,
    generatedLineFirst: true,
    noFinalBlankLine: true,
    manifestHasPullRequest: true,
    manifestMcpServers: {
      // Read from the corpus locks (context, repos, issues, pull_requests, actions, discussions); the other
      // toolsets keep the read-only tools of v0.76.1's default list.
      githubToolsets: {
        context: ["get_me"],
        repos: [
          "get_commit",
          "get_file_contents",
          "get_latest_release",
          "get_release_by_tag",
          "get_tag",
          "list_branches",
          "list_commits",
          "list_releases",
          "list_starred_repositories",
          "list_tags",
          "search_code",
          "search_repositories",
        ],
        issues: ["issue_read", "list_issue_types", "list_issues", "search_issues"],
        pull_requests: [
          "get_pull_request",
          "get_pull_request_comments",
          "get_pull_request_diff",
          "get_pull_request_files",
          "get_pull_request_review_comments",
          "get_pull_request_reviews",
          "get_pull_request_status",
          "list_pull_requests",
          "pull_request_read",
          "search_pull_requests",
        ],
        actions: ["actions_get", "actions_list", "get_job_logs"],
        discussions: [
          "get_discussion",
          "get_discussion_comments",
          "list_discussion_categories",
          "list_discussions",
        ],
        search: ["search_code", "search_issues", "search_pull_requests", "search_repositories"],
        stargazers: ["list_starred_repositories"],
        code_security: ["get_code_scanning_alert", "list_code_scanning_alerts"],
        dependabot: ["get_dependabot_alert", "list_dependabot_alerts"],
        secret_protection: ["get_secret_scanning_alert", "list_secret_scanning_alerts"],
        labels: ["get_label", "list_label"],
        notifications: ["get_notification_details", "list_notifications"],
        orgs: ["search_orgs"],
        users: ["search_users"],
      },
      notSafeOutputTools: [
        "create_report_incomplete_issue",
        "max_bot_mentions",
        "mentions",
        "push_repo_memory",
        "report_incomplete",
      ],
    },
  },
  jobs: {
    runtimeFeaturesJobs: [
      "pre_activation",
      "activation",
      "agent",
      "safe_outputs",
      "conclusion",
      "push_repo_memory",
    ],
    preActivationContentsOnlyForCheckout: true,
    commandCheckFirst: true,
    defaultRolesNeedNoCheck: true,
    stackedPrGuard: true,
    agentOutputFallback: true,
    ghHostZizmorNote: true,
    cacheMemoryRestoreOutputs: true,
    aiCredits: { dailyDefault: "5000", runDefault: "1000" },
    mountAllMcpServers: true,
    agenticWorkflowsMcpOnly: true,
    safeOutputsConfigFromEnv: true,
    gitCredentialsScript: true,
    dispatchedPrCheckout: true,
    customJobs: { permissionsBlankLine: false, checkoutPersistCredentials: true, breakLongIf: true },
    repoMemoryBranchByWorkflow: true,
    negateDisjunctionWhole: true,
    dockerSbxSecretsCheck: true,
    agent: {
      jobTimeout: false,
      activationArtifactEarly: true,
      awfScriptArgs: "--rootless",
      logParserReadsSafeOutputs: true,
      patchesWithCodePush: true,
      needsEveryPreAgentJob: true,
      trimsQuotedLastScalar: true,
      userStepsAfterMemory: true,
      validation: VALIDATION_V0_87_4,
      toolPropertyInjections: {
        close_issue: {
          state_reason: {
            description:
              "Optional closing state reason. Omit to use the configured default. Select 'duplicate' " +
              "together with 'duplicate_of' to mark a native duplicate relationship.",
            enum: ["completed", "not_planned", "duplicate"],
            type: "string",
          },
        },
      },
      awf: {
        modelAliases: MODEL_ALIASES_V0_87_4,
        maxAiCreditsDefault: "1000",
        maxCacheMisses: 5,
        imageTagDigests: ["squid", "agent", "api-proxy", "cli-proxy"],
        logging: {
          proxyLogsDir: "/tmp/gh-aw/sandbox/firewall/logs",
          auditDir: "/tmp/gh-aw/sandbox/firewall/audit",
        },
        topologyAttach: "awmg-mcpg",
        cliProxyContainer: "awmg-cli-proxy",
        excludeEnv: ["ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL"],
        gvisorRelease: "20250707.0",
        // gh-aw builds the review's run with the agent's AWF command builder (`IsDetectionRun`): its own
        // budget (`DefaultDetectionMaxAICredits` 400, `GH_AW_DEFAULT_DETECTION_MAX_AI_CREDITS`) and the jq
        // chroot patch.
        detection: {
          maxAiCreditsDefault: "400",
          maxAiCreditsVar: "GH_AW_DEFAULT_DETECTION_MAX_AI_CREDITS",
          chrootPatch: "jq",
        },
      },
      gateway: {
        safeOutputsStdio: true,
        containerName: "awmg-mcpg",
        allowedMountRoots: [
          "${GITHUB_WORKSPACE}:rw",
          "${RUNNER_TEMP}/gh-aw:ro",
          "${RUNNER_TEMP}/gh-aw/safeoutputs:rw",
          "/opt:ro",
          "/tmp:rw",
          "/usr/bin/gh:ro",
        ],
        startupTimeout: 120,
        githubFeatures: "fields_param",
        sinkVisibility: true,
        proxyHostEnv: true,
        difcProxyAnyMode: true,
        playwrightServer: true,
        mcpServerReplacesGithubTool: true,
        releaseInstallsGhAw: true,
        delimiterFromContent: true,
      },
    },
    activation: {
      promptPath: "${{ runner.temp }}/gh-aw/aw-prompts/prompt.txt",
      poutineNotes: false,
      sparseCheckout: [".github", ".agents", ".claude", ".codex", ".gemini", ".pi"],
      runInfoAgentRuntime: true,
      domainsAsWritten: true,
      strictPolicyCheck: true,
      versionChecks: true,
      stagePromptFiles: true,
      modelsFile: "models.json",
      promptFromJson: true,
      mcpCliPrompt: "mcp_cli_tools_with_safeoutputs_prompt.md",
    },
    safeOutputs: {
      handlerModule: "process_safe_outputs",
      timeoutMinutes: 45,
      aiCreditsEnv: true,
      engineVersionEnv: false,
      itemOutputs: true,
      contentsRead: false,
      noopReportAsIssue: false,
      declaredConfigures: true,
      checkoutTriggeringRef: true,
      defaultMaxPatchSize: 4096,
      handlerKeyRenames: { add_reviewer: { allowed_reviewers: "allowed" } },
      headShaEnv: true,
      handlerDefaults: { update_pull_request: { update_branch_stacks: true } },
      typeJobOutputs: { "assign-milestone": { assign_milestone_milestone_assigned: "milestone_assigned" } },
      conclusionUsesOwnToken: true,
      toolOrderAfter: {
        close_discussion: "update_discussion",
        mark_pull_request_as_ready_for_review: "update_pull_request",
      },
    },
  },
};
