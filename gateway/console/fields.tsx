/** Labelled form fields that show their error next to them (aria-invalid, aria-describedby). */

/** A text-like input with label, hint and error. */
export function Field(props: {
  name: string;
  label: string;
  value?: string;
  error?: string;
  hint?: string;
  type?: string;
  inputmode?: "numeric" | "decimal";
  required?: boolean;
}) {
  const id = `f-${props.name}`;
  const described = [props.hint && `${id}-hint`, props.error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <div>
      <label for={id}>
        {props.label}
        {props.hint && <span class="hint" id={`${id}-hint`}>{props.hint}</span>}
      </label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        inputmode={props.inputmode}
        required={props.required}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={described || undefined}
      />
      {props.error && <p class="field-error" id={`${id}-error`}>{props.error}</p>}
    </div>
  );
}

/** A select with label and error. */
export function Select(props: {
  name: string;
  label: string;
  options: Array<[string, string]>;
  value?: string;
  error?: string;
}) {
  const id = `f-${props.name}`;
  return (
    <div>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={props.error ? `${id}-error` : undefined}
      >
        {props.options.map(([value, label]) => (
          <option value={value} selected={value === (props.value ?? "")}>{label}</option>
        ))}
      </select>
      {props.error && <p class="field-error" id={`${id}-error`}>{props.error}</p>}
    </div>
  );
}

/** The hidden CSRF field every form carries. */
export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}
