import assert from "node:assert/strict";
import { topLevelString } from "./json_peek.ts";

const agreeing = [
  `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}]}`,
  `{"content":[{"type":"tool_use","input":{"model":"inner"}}],"model":"outer"}`,
  `{"content":[{"type":"text","text":"\\"model\\":\\"fake\\", {[ "}],"model":"real"}`,
  ` { "model" : "spaced" , "n" : -1.5e3 , "t" : true , "z" : null } `,
  `{"model":"first","model":"last"}`,
  `{"model":"esc\\u00e9\\"q\\\\"}`,
  `{"model":42}`,
  `{"other":"x"}`,
  `{}`,
  `{"a":[[],{}],"b":{"c":[1,{"model":"no"}]},"model":"yes"}`,
];

Deno.test("topLevelString agrees with JSON.parse on the top-level field", () => {
  for (const text of agreeing) {
    const parsed = JSON.parse(text).model;
    assert.equal(topLevelString(text, "model"), typeof parsed === "string" ? parsed : null, text);
  }
});

Deno.test("topLevelString gives up (undefined) on what it cannot be sure about", () => {
  for (
    const text of [
      `[{"model":"x"}]`,
      `{"model":"x"`,
      `{"model":"x"} trailing`,
      `{"mod\\u0065l":"x"}`,
      `{"content":[{"text":"unterminated}],"model":"x"}`,
      `{"model" "x"}`,
      `{"a":1 "model":"x"}`,
      ``,
    ]
  ) assert.equal(topLevelString(text, "model"), undefined, text);
});
