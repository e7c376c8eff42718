import { assertEquals } from "../../test_assert.ts";
import { InlineJson, RawJson, renderJson, ShallowJson } from "./json.ts";

Deno.test("the gateway JSON keeps backslashes, writes raw tokens bare and arrays one item per line", () => {
  const text = renderJson({
    a: { port: new RawJson("$PORT"), host: "\\${HOST}", list: ["x", "y"], none: [], q: 'say "hi"' },
    b: new InlineJson(["--network", "host"]),
  });
  assertEquals(
    text,
    '{\n  "a": {\n    "port": $PORT,\n    "host": "\\${HOST}",\n    "list": [\n      "x",\n      "y"\n    ],\n' +
      '    "none": [],\n    "q": "say \\"hi\\""\n  },\n  "b": ["--network", "host"]\n}',
  );
});

Deno.test("a shallow object is written one level in, closing at its key's indentation (Codex's custom servers)", () => {
  const text = renderJson({ servers: { s: new ShallowJson({ type: "stdio", args: ["a"] }) } });
  assertEquals(
    text,
    '{\n  "servers": {\n    "s": {\n    "type": "stdio",\n    "args": [\n      "a"\n    ]\n    }\n  }\n}',
  );
});
