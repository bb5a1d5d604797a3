import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { formFields, SelectField, TextField } from "./field";
import { FormError, FormMessage } from "./form-error";
import { SubmitButton } from "./submit-button";

const html = renderToStaticMarkup;

describe("form fields", () => {
  it("label and control share the form's id for the field, and the control keeps its attributes", () => {
    const field = formFields("f1", "sm");
    const out = html(
      <TextField {...field("eval", "Evaluation id")} name="evaluationId" required className="font-mono" />,
    );
    expect(out).toContain('<label for="f1-eval" class="block text-sm font-medium">Evaluation id</label>');
    expect(out).toContain('id="f1-eval"');
    expect(out).toContain('class="mt-1 w-full rounded border border-slate-400 px-3 py-2 font-mono"');
    expect(out).toContain('required=""');
    expect(out).toContain('name="evaluationId"');
  });

  it("a hint is described by the input, and a drop-down lists its options with their labels", () => {
    const hinted = html(<TextField id="n" label="Name" hint={{ id: "n-hint", text: "2 to 60 characters" }} />);
    expect(hinted).toContain('aria-describedby="n-hint"');
    expect(hinted).toContain('<p id="n-hint" class="mt-1 text-xs text-slate-600">2 to 60 characters</p>');
    const select = html(
      <SelectField id="k" label="Kind" defaultValue="b" options={["a", { value: "b", label: "bee" }]} />,
    );
    expect(select).toContain('<label for="k" class="block font-medium">Kind</label>');
    expect(select).toContain('<option value="a">a</option><option value="b" selected="">bee</option>');
  });

  it("errors are alerts, successes statuses, and nothing shows without a message", () => {
    expect(html(<FormError id="e" message="no" />)).toBe('<p id="e" role="alert" class="text-sm text-red-800">no</p>');
    expect(html(<FormError message={null} />)).toBe("");
    expect(html(<FormMessage ok>done</FormMessage>)).toBe('<p role="status" class="text-sm text-emerald-800">done</p>');
  });

  it("a pending submit button is disabled and says so", () => {
    expect(
      html(
        <SubmitButton pending pendingLabel="Saving…">
          Save
        </SubmitButton>,
      ),
    ).toMatch(/disabled=""[^>]*>Saving…</);
    expect(html(<SubmitButton disabled>Save</SubmitButton>)).toMatch(/disabled=""[^>]*>Save</);
    expect(html(<SubmitButton tone="danger">Void</SubmitButton>)).toBe(
      '<button type="submit" class="rounded bg-red-800 px-4 py-2 font-medium text-white hover:bg-red-900 disabled:opacity-60">Void</button>',
    );
  });
});
