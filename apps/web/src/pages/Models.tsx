import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { call, query, scoped, type Model } from "../api";
import { useConsole } from "../session";
import { Empty, ErrorMessage, Loading, PageHeader } from "../ui";

const CATEGORIES = ["image", "video", "audio"];

export function Models() {
  const { mode } = useConsole();
  const [params, setParams] = useSearchParams();
  const category = params.get("category") ?? "";
  const highlighted = params.get("highlighted") === "true";
  const models = useQuery({
    queryKey: ["scoped", mode, "models", category, highlighted],
    queryFn: () =>
      call<{ models: Model[]; total: number }>(
        scoped(
          mode,
          `/models${query({ limit: 200, category, highlighted: highlighted ? "true" : undefined })}`,
        ),
      ),
  });
  const set = (next: Record<string, string>) =>
    setParams(
      Object.fromEntries(
        Object.entries({ category, highlighted: highlighted ? "true" : "", ...next }).filter(([, v]) => v),
      ),
    );
  return (
    <>
      <PageHeader title="Models & playground" />
      <form className="filters" role="search" aria-label="Filter models" onSubmit={(e) => e.preventDefault()}>
        <label>
          Category
          <select value={category} onChange={(e) => set({ category: e.target.value })}>
            <option value="">All categories</option>
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          <input
            type="checkbox"
            checked={highlighted}
            onChange={(e) => set({ highlighted: e.target.checked ? "true" : "" })}
          />
          Highlighted only
        </label>
      </form>
      <OpenById />
      <ErrorMessage error={models.error} />
      {models.isPending ? <Loading /> : null}
      {models.data?.models.length === 0 ? <Empty>No models match.</Empty> : null}
      <ul className="cards models">
        {models.data?.models.map((m) => (
          <li key={m.id} className="card">
            <Link to={`/models/${m.id}`} className="card-title">
              {m.name}
            </Link>
            <p>
              <code>{m.id}</code> <span className="badge">{m.category}</span>
              {m.highlighted ? <span className="badge badge-highlight">highlighted</span> : null}
            </p>
            <p className="muted">{m.description}</p>
            <p className="small">from {m.estimated_tokens} tokens a run</p>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * A model runnable by id but never listed (acme/echo, acme/upscale: models that do not take their
 * category's usual input) is opened by typing its id.
 */
function OpenById() {
  const navigate = useNavigate();
  const [id, setId] = useState("");
  return (
    <form
      className="filters"
      aria-label="Open a model by id"
      onSubmit={(e) => {
        e.preventDefault();
        if (id.trim()) void navigate(`/models/${id.trim()}`);
      }}
    >
      <label>
        Model id
        <input value={id} onChange={(e) => setId(e.target.value)} placeholder="acme/upscale" />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}
