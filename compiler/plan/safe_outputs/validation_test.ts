import { assert, assertEquals } from "../../test_assert.ts";
import { FIELD_KEY_ORDER, goJson, VALIDATION, validationJson } from "./validation.ts";

Deno.test("the validation JSON lists only known enabled types, in name order, with fields sorted", () => {
  const json = validationJson(["noop", "create_issue", "push_repo_memory", "noop"]);
  const v = JSON.parse(json);
  assertEquals(Object.keys(v), ["create_issue", "noop"]);
  assertEquals(Object.keys(v.create_issue.fields), [...Object.keys(v.create_issue.fields)].sort());
  assertEquals(v.noop, {
    defaultMax: 1,
    fields: { message: { required: true, type: "string", sanitize: true, maxLength: 65000 } },
  });
});

Deno.test("field rules are written in the runtime's key order, not the order they were declared in", () => {
  const json = validationJson(["create_discussion", "comment_memory"]);
  assert(
    json.includes(
      '"required": true,\n        "type": "string",\n        "sanitize": true,\n        "maxLength": 65000,\n        "minLength": 64',
    ),
  );
  const memoryId = JSON.parse(json).comment_memory.fields.memory_id;
  assertEquals(Object.keys(memoryId), ["type", "sanitize", "maxLength", "pattern", "patternError"]);
  for (const rule of Object.values(VALIDATION)) {
    for (const f of Object.values(rule.fields)) {
      for (const k of Object.keys(f)) assert(FIELD_KEY_ORDER.includes(k as never));
    }
  }
});

Deno.test("a cross-field rule follows the fields of its type", () => {
  const v = JSON.parse(validationJson(["link_sub_issue"]));
  assertEquals(Object.keys(v.link_sub_issue), ["defaultMax", "fields", "customValidation"]);
  assertEquals(v.link_sub_issue.customValidation, "parentAndSubDifferent");
});

Deno.test("JSON is escaped the way Go's encoder escapes HTML characters", () => {
  assertEquals(goJson({ a: "<b> & c" }), '{"a":"\\u003cb\\u003e \\u0026 c"}');
  assertEquals(goJson({ a: {}, b: [] }, 2), '{\n  "a": {},\n  "b": []\n}');
});
