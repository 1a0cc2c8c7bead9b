/**
 * Words of everyday prose that are not stop words but never explain why a
 * passage matches a paragraph ("first", "work", "month", "history"): a
 * library's idf cannot tell, since in a small library they are as rare as
 * its subject words. Used only for highlighting, never for retrieval.
 * Written for this project; English and French, compared as index terms
 * (folded and stemmed in the word's language).
 */
import { foldText, stem } from '../text/tokenize';

const EN = // time and quantity
  (
    'time times day days week weeks month months year years century centuries decade decades period periods moment moments ' +
    'age ages date dates hour hours minute minutes morning evening night today yesterday tomorrow ' +
    'one two three four five six seven eight nine ten hundred hundreds thousand thousands million millions ' +
    'first second third last next previous half number numbers many much several few lot lots ' +
    // general nouns
    'history histories work works part parts way ways case cases fact facts point points thing things example examples kind kinds ' +
    'sort form forms place places world man men woman women people person persons life lives hand hands side sides end ' +
    'question questions problem problems matter matters reason reasons result results level levels order use uses study studies ' +
    'word words name names idea ideas view views sense interest account accounts course area areas line lines term terms ' +
    'side aspect aspects feature features role roles attention effect effects chapter chapters page pages note notes ' +
    // general verbs
    'make makes made making take takes took taken give gives gave given work worked working use used using find finds found ' +
    'say says said come comes came go goes went gone see sees saw seen know knows knew known think thought become became ' +
    'begin began begun seem seems seemed show shows showed shown call called keep kept hold held bring brought leave left ' +
    'put set turn turned move moved live lived stand stood meet met include included continue continued change changed ' +
    'lead led follow followed stop stopped create created speak spoke read allow allowed add added grow grew open opened ' +
    'offer offered remember consider considered appear appeared wait serve served send sent expect expected build built ' +
    'stay stayed fall fell reach reached remain remained suggest suggested raise raised pass passed require required ' +
    'report reported decide decided get gets got let lets try tried ask asked need needed feel felt tell told mean meant ' +
    'write wrote written provide provided describe described explain explained note noted argue argued ' +
    // general adjectives and adverbs
    'new old good better best bad worse worst great greater greatest small smaller large larger long longer little high higher ' +
    'low lower different same early earlier late later young important few certain clear full real main possible general ' +
    'common simple single whole right particular recent short major minor own able likely various similar ' +
    'almost often still even ever never always already perhaps quite rather really indeed soon less least far well back ' +
    'away together again instead especially simply largely mostly usually certainly probably finally already every ' +
    'many much something nothing anything everything someone everyone anyone ' +
    'around along among across beyond toward towards whatever whenever wherever'
  ).split(/\s+/);

const FR = (
  'temps jour jours semaine semaines mois annee annees an ans siecle siecles decennie periode moment moments epoque date heure ' +
  'deux trois quatre cinq six sept huit neuf dix cent cents mille million millions ' +
  'premier premiere premiers premieres dernier derniere derniers second seconde prochain nombre nombreux nombreuses plusieurs ' +
  'histoire histoires travail travaux partie parties fois chose choses cas fait faits exemple exemples sorte forme formes ' +
  'lieu lieux monde homme hommes femme femmes gens personne personnes vie vies main mains cote fin question questions ' +
  'probleme problemes raison raisons resultat resultats niveau ordre mot mots nom noms idee idees vue sens interet terme ' +
  'termes role effet effets chapitre page pages note notes facon maniere ' +
  'faire fait faits faite font dire dit dite voir vu vue savoir pouvoir peut peuvent pourrait vouloir veut prendre pris ' +
  'donner donne donnent venir vient aller va vont mettre mis trouver trouve rendre rend tenir tient porter passer passe ' +
  'rester reste devenir devient sembler semble montrer montre laisser suivre lire ecrire croire demander paraitre ' +
  'nouveau nouvelle nouveaux nouvelles vieux vieille ancien ancienne grand grande grands grandes petit petite petits petites ' +
  'long longue haut haute bas basse bon bonne mauvais meilleur meme autre autres seul seule chaque certain certaine ' +
  'encore toujours jamais deja souvent mieux enfin puis ensuite surtout vraiment tard tot loin quelque quelques rien chose ' +
  'avant apres comment pendant depuis contre parmi devant derriere'
).split(/\s+/);

function stemsOf(words: string[], lang: 'en' | 'fr'): Set<string> {
  return new Set(words.filter(Boolean).map((w) => stem(foldText(w), lang)));
}

const COMMON = [...stemsOf(EN, 'en'), ...stemsOf(FR, 'fr')];
const COMMON_SET = new Set(COMMON);

/** Whether an index term (folded, stemmed) is an everyday word in English or French. */
export function isCommonTerm(term: string): boolean {
  return COMMON_SET.has(term);
}
