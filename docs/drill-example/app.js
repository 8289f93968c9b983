// A small app on the official OpenAI SDK: it answers a list of questions, one a second, the way a
// queue worker would. The SDK retries a failed request twice by itself; on top of that the app
// tries a question again twice after a pause before it gives up on it. It exits 1 if it gave up on
// any. `breakwater exec` runs it against a private Breakwater (OPENAI_BASE_URL points there) and
// plays faults.json into its traffic: does the app get through a 529 storm and a hang?
import OpenAI from "openai";

const client = new OpenAI({ timeout: 20_000 }); // OPENAI_BASE_URL and OPENAI_API_KEY from the environment
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const questions = [
  "What is a circuit breaker?", "What does a 529 mean?", "Why retry with backoff?",
  "What is a thundering herd?", "What is singleflight?", "Why set a timeout?",
  "What is a cache hit?", "What is a half-open breaker?", "Why jitter?", "What is a drill?",
  "What is HAR?", "What is JUnit XML?",
];

async function ask(question) {
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await client.chat.completions.create({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: question }],
      });
      return answer.choices[0].message.content;
    } catch (error) {
      if (!(error instanceof OpenAI.APIError) || attempt === 3) throw error;
      console.error(`  "${question}": ${error.status ?? "no answer"}, trying again in 3 s`);
      await sleep(3000);
    }
  }
}

let gaveUp = 0;
for (const question of questions) {
  try {
    console.log(`${question} -> ${(await ask(question)).slice(0, 60)}`);
  } catch (error) {
    gaveUp++;
    console.error(`${question} -> gave up: ${error.status ?? ""} ${error.message}`);
  }
  await sleep(1000);
}
console.log(`${questions.length - gaveUp} of ${questions.length} answered`);
process.exit(gaveUp > 0 ? 1 : 0);
