import { env } from "@/lib/env";
import { contactLink } from "@/lib/kit/operators-contact";

export default function RegistrationClosed() {
  const contact = contactLink(env().OPERATORS_CONTACT);
  return (
    <div className="max-w-prose space-y-3">
      <h1 className="text-2xl font-semibold">Registration is closed</h1>
      <p className="text-slate-700">
        Accounts are by invitation: ask the operators for a token
        {contact ? (
          <> at {contact.href ? <a href={contact.href}>{contact.text}</a> : <span>{contact.text}</span>}</>
        ) : null}
        . When they open registration, this page hands one out. The <a href="/guide#token">guide</a> says how a token is
        used.
      </p>
    </div>
  );
}
