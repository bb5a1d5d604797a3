export const dynamic = "force-dynamic";

export default function HomePage() {
  return (
    <section>
      <h1 className="text-2xl font-semibold">SpeculatorArena</h1>
      <p className="mt-2 max-w-prose text-slate-700">
        How much faster a speculative decoder makes a fixed model serve real multi-turn traffic on one GPU, without
        changing what the model says.
      </p>
    </section>
  );
}
