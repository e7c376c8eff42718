/**
 * Release data of gh-aw v0.87.4: the field validation of each safe-output type it hands the runtime
 * (`GH_AW_VALIDATION_JSON`), read from its locks; key order as the release writes it. Types not listed keep
 * v0.76.1's rules.
 */
export const VALIDATION_V0_87_4: Readonly<Record<string, unknown>> = {
  "add_comment": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "comment_id": {
        "optionalPositiveInteger": true,
      },
      "item_number": {
        "issueOrPRNumber": true,
      },
      "pr": {
        "issueOrPRNumber": true,
      },
      "pr_number": {
        "issueOrPRNumber": true,
      },
      "reply_to_id": {
        "type": "string",
        "maxLength": 256,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "target": {
        "type": "string",
        "enum": [
          "status",
        ],
      },
      "temporary_id": {
        "type": "string",
        "pattern": "^#?aw_[A-Za-z0-9_]{3,12}$",
      },
    },
  },
  "add_labels": {
    "defaultMax": 5,
    "fields": {
      "item_number": {
        "issueNumberOrTemporaryId": true,
      },
      "labels": {
        "required": true,
        "type": "array",
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "add_reviewer": {
    "defaultMax": 3,
    "fields": {
      "pull_request_number": {
        "issueOrPRNumber": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "reviewers": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 39,
      },
      "team_reviewers": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 100,
      },
    },
    "customValidation": "requiresOneOf:reviewers,team_reviewers",
  },
  "assign_milestone": {
    "defaultMax": 1,
    "fields": {
      "issue_number": {
        "issueNumberOrTemporaryId": true,
      },
      "milestone_number": {
        "optionalPositiveInteger": true,
      },
      "milestone_title": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
    "customValidation": "requiresOneOf:milestone_number,milestone_title",
  },
  "assign_to_agent": {
    "defaultMax": 1,
    "fields": {
      "agent": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
      "confidence": {
        "type": "string",
        "enum": [
          "LOW",
          "MEDIUM",
          "HIGH",
        ],
        "x-strip-on-error": true,
      },
      "issue_number": {
        "issueNumberOrTemporaryId": true,
      },
      "pull_number": {
        "optionalPositiveInteger": true,
      },
      "pull_request_repo": {
        "type": "string",
        "maxLength": 256,
      },
      "rationale": {
        "type": "string",
        "sanitize": true,
        "maxLength": 280,
        "x-strip-on-error": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "suggest": {
        "type": "boolean",
      },
    },
    "customValidation": "requiresOneOf:issue_number,pull_number",
  },
  "close_discussion": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "discussion_number": {
        "optionalPositiveInteger": true,
      },
      "reason": {
        "type": "string",
        "enum": [
          "RESOLVED",
          "DUPLICATE",
          "OUTDATED",
          "ANSWERED",
        ],
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "close_issue": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "confidence": {
        "type": "string",
        "enum": [
          "LOW",
          "MEDIUM",
          "HIGH",
        ],
        "x-strip-on-error": true,
      },
      "duplicate_of": {
        "issueOrPRNumber": true,
      },
      "issue_number": {
        "optionalPositiveInteger": true,
      },
      "rationale": {
        "type": "string",
        "sanitize": true,
        "maxLength": 280,
        "x-strip-on-error": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "suggest": {
        "type": "boolean",
      },
    },
  },
  "close_pull_request": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "pull_request_number": {
        "optionalPositiveInteger": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "create_discussion": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
        "minLength": 64,
      },
      "category": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "title": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
  },
  "create_issue": {
    "defaultMax": 1,
    "fields": {
      "blocked_by": {},
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
        "minLength": 20,
      },
      "fields": {
        "type": "array",
      },
      "labels": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 128,
      },
      "parent": {
        "issueOrPRNumber": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "temporary_id": {
        "type": "string",
      },
      "title": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
  },
  "create_pull_request": {
    "defaultMax": 1,
    "fields": {
      "base": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "branch": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "dependencies": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 256,
      },
      "draft": {
        "type": "boolean",
      },
      "labels": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 128,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "stack_position": {
        "optionalPositiveInteger": true,
      },
      "stack_root": {
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "temporary_id": {
        "type": "string",
        "pattern": "^#?aw_[A-Za-z0-9_]{3,12}$",
      },
      "title": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
  },
  "create_pull_request_review_comment": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "line": {
        "required": true,
        "positiveInteger": true,
      },
      "path": {
        "required": true,
        "type": "string",
      },
      "pull_request_number": {
        "optionalPositiveInteger": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "side": {
        "type": "string",
        "enum": [
          "LEFT",
          "RIGHT",
        ],
      },
      "start_line": {
        "optionalPositiveInteger": true,
      },
    },
    "customValidation": "startLineLessOrEqualLine",
  },
  "link_sub_issue": {
    "defaultMax": 5,
    "fields": {
      "parent_issue_number": {
        "required": true,
        "issueNumberOrTemporaryId": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "sub_issue_number": {
        "required": true,
        "issueNumberOrTemporaryId": true,
      },
    },
    "customValidation": "parentAndSubDifferent",
  },
  "mark_pull_request_as_ready_for_review": {
    "defaultMax": 1,
    "fields": {
      "pull_request_number": {
        "issueOrPRNumber": true,
      },
      "reason": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "mentions": {
    "enabled": false,
  },
  "missing_data": {
    "defaultMax": 20,
    "fields": {
      "alternatives": {
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "context": {
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "data_type": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
      "reason": {
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
    },
  },
  "missing_tool": {
    "defaultMax": 20,
    "fields": {
      "alternatives": {
        "type": "string",
        "sanitize": true,
        "maxLength": 512,
      },
      "reason": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "tool": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
  },
  "noop": {
    "defaultMax": 1,
    "fields": {
      "message": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
    },
  },
  "push_repo_memory": {
    "defaultMax": 1,
    "fields": {
      "memory_id": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
  },
  "push_to_pull_request_branch": {
    "defaultMax": 1,
    "fields": {
      "branch": {
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "message": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "pull_request_number": {
        "issueOrPRNumber": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "remove_labels": {
    "defaultMax": 5,
    "fields": {
      "item_number": {
        "issueNumberOrTemporaryId": true,
      },
      "labels": {
        "required": true,
        "type": "array",
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "reply_to_pull_request_review_comment": {
    "defaultMax": 10,
    "fields": {
      "body": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "comment_id": {
        "required": true,
        "positiveInteger": true,
      },
      "pull_request_number": {
        "optionalPositiveInteger": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "report_incomplete": {
    "defaultMax": 5,
    "fields": {
      "details": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "reason": {
        "required": true,
        "type": "string",
        "sanitize": true,
        "maxLength": 1024,
      },
    },
  },
  "resolve_pull_request_review_thread": {
    "defaultMax": 10,
    "fields": {
      "thread_id": {
        "required": true,
        "type": "string",
      },
    },
  },
  "submit_pull_request_review": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "event": {
        "type": "string",
        "enum": [
          "APPROVE",
          "REQUEST_CHANGES",
          "COMMENT",
        ],
      },
      "pull_request_number": {
        "issueOrPRNumber": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
    },
  },
  "update_discussion": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "discussion_number": {
        "issueOrPRNumber": true,
      },
      "labels": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 128,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "title": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
    "customValidation": "requiresOneOf:title,body,labels",
  },
  "update_issue": {
    "defaultMax": 1,
    "fields": {
      "assignees": {
        "type": "array",
        "itemType": "string",
        "itemSanitize": true,
        "itemMaxLength": 39,
      },
      "body": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "issue_number": {
        "issueOrPRNumber": true,
      },
      "labels": {
        "type": "array",
      },
      "milestone": {
        "optionalPositiveInteger": true,
      },
      "operation": {
        "type": "string",
        "enum": [
          "replace",
          "append",
          "prepend",
          "replace-island",
        ],
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "status": {
        "type": "string",
        "enum": [
          "open",
          "closed",
        ],
      },
      "title": {
        "type": "string",
        "sanitize": true,
        "maxLength": 128,
      },
    },
    "customValidation": "requiresOneOf:status,title,body,labels,assignees,milestone",
  },
  "update_pull_request": {
    "defaultMax": 1,
    "fields": {
      "body": {
        "type": "string",
        "sanitize": true,
        "maxLength": 65000,
      },
      "draft": {
        "type": "boolean",
      },
      "operation": {
        "type": "string",
        "enum": [
          "replace",
          "append",
          "prepend",
        ],
      },
      "pr": {
        "issueOrPRNumber": true,
      },
      "pr_number": {
        "issueOrPRNumber": true,
      },
      "pull_request_number": {
        "issueOrPRNumber": true,
      },
      "repo": {
        "type": "string",
        "maxLength": 256,
      },
      "title": {
        "type": "string",
        "sanitize": true,
        "maxLength": 256,
      },
      "update_branch": {
        "type": "boolean",
      },
    },
    "customValidation": "requiresOneOf:title,body,update_branch",
  },
};
