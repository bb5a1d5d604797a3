/** The operators' contact (OPERATORS_CONTACT) as a link: an email address as mailto:, a URL as itself, else text. */
export function contactLink(contact: string | undefined): { href: string | null; text: string } | null {
  if (!contact) return null;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) return { href: `mailto:${contact}`, text: contact };
  if (/^https?:\/\/\S+$/.test(contact)) return { href: contact, text: contact };
  return { href: null, text: contact };
}
