export default function RegistrationClosed() {
  return (
    <div className="max-w-prose space-y-3">
      <h1 className="text-2xl font-semibold">Registration is closed</h1>
      <p className="text-slate-700">
        Accounts are by invitation: ask the operators for a token. When they open registration, this page hands one out.
      </p>
    </div>
  );
}
