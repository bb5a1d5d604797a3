import { describe, expect, it } from "vitest";
import { contactLink } from "./operators-contact";

describe("contactLink", () => {
  it("links an email address, a URL, and leaves anything else as text", () => {
    expect(contactLink("ops@arena.example")).toEqual({ href: "mailto:ops@arena.example", text: "ops@arena.example" });
    expect(contactLink("https://arena.example/contact")).toEqual({
      href: "https://arena.example/contact",
      text: "https://arena.example/contact",
    });
    expect(contactLink("#arena on the lab's chat")).toEqual({ href: null, text: "#arena on the lab's chat" });
    expect(contactLink(undefined)).toBeNull();
  });
});
