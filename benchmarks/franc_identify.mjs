// franc-all on a file of texts, one per line (tabs and newlines escaped as \t, \n):
//   node franc_identify.mjs NODE_MODULES_DIR TEXTS.txt
// prints one JSON object: the languages franc-all knows, one code per text (one call
// per text, as in the table), and the seconds the calls took (load excluded).
import {readFileSync} from 'node:fs'
import {pathToFileURL} from 'node:url'
import {join} from 'node:path'

const [modules, file] = process.argv.slice(2)
const franc = await import(pathToFileURL(join(modules, 'franc-all', 'index.js')).href)
const {data} = await import(pathToFileURL(join(modules, 'franc-all', 'data.js')).href)
const {expressions} = await import(pathToFileURL(join(modules, 'franc-all', 'expressions.js')).href)
const languages = new Set()
for (const script of Object.keys(expressions)) {
  if (data[script]) for (const code of Object.keys(data[script])) languages.add(code)
  else languages.add(script)
}
const texts = readFileSync(file, 'utf8').split('\n').filter((line) => line.length > 0)
  .map((line) => line.replaceAll('\\n', '\n').replaceAll('\\t', '\t').replaceAll('\\\\', '\\'))
const start = process.hrtime.bigint()
const codes = texts.map((text) => franc.franc(text, {minLength: 1}))
const seconds = Number(process.hrtime.bigint() - start) / 1e9
process.stdout.write(JSON.stringify({languages: [...languages].sort(), codes, seconds}))
