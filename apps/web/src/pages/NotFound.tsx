import { Link } from "react-router";
import { PageHeader } from "../ui";

export function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is nothing here. Go to <Link to="/runs">your runs</Link>.
      </p>
    </>
  );
}
