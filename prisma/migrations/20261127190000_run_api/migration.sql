-- The API style a run was made through (issue #51: Replicate's and OpenAI's clients): the run is
-- the same whichever way it came in, but its own webhook's body, and the console, follow it.
CREATE TYPE "RunApi" AS ENUM ('native', 'replicate', 'openai');
ALTER TABLE "runs" ADD COLUMN "api" "RunApi" NOT NULL DEFAULT 'native';
