// The sentences every demo type shares (story-grammar.ts notation), by kind of news: how a lead
// wraps a type's clause, how a quote is attributed, background, analysis, outlook and closing
// lines. Macros ({{noun}}, {{actor}}, {{place}}, {{source}}...) take each type's own words when
// the templates are compiled per type (demo-stories.ts); a template naming {{place}} is left out
// for a type without a place. Large pools with many small choices: two stories written apart
// should share little more than the event's names, numbers and quote.
import type { StoryCategory } from './story-type-phrases.js';

/** A lead: the type's clause ({{clause}}), when ({day}) and on whose word. */
export const LEAD_FORMS = [
  '{{clause}} on {day}, {{source}}.',
  '{{clause}}, {{source}} on {day}.',
  'On {day}, {{clause}}, {{source}}.',
  '{{clause}}, {{source}}.',
  '{{sayer}} said on {day} that {{clause}}.',
  'In [a statement|an announcement|remarks to reporters] on {day}, {{sayer}} said {{clause}}.',
  '{{clause}} [early|late] on {day}[|, {{source}}].',
  '[News emerged|Word came|It emerged] on {day} that {{clause}}.',
  '{{clause}}[| on {date}], in what [{{sayer}} described as|observers called] [a significant development|an unusual step|a notable moment].',
];

/** The quote and who said it: the quote's words the same wherever it appears, the frame around it not. */
export const QUOTE_FORMS = [
  '"{quote}," said {speaker_name}, {speaker_title}.',
  '"{quote}," {speaker_name}, {speaker_title}, said[| in a statement| on {day}].',
  '{speaker_name}, {speaker_title}, said: "{quote}."',
  '[Speaking to reporters|In a statement|Speaking on {day}], {speaker_name}, {speaker_title}, said: "{quote}."',
  '"{quote}," [according to|in the words of] {speaker_name}, {speaker_title}.',
  '{speaker_name}, {speaker_title}, [told reporters|put it this way|was blunt]: "{quote}."',
];

/** What may follow the quote in its paragraph. */
export const AFTER_QUOTE = [
  '[The remarks|Those comments|The comments] [came|were made|were delivered] [at a news conference|in a statement|in a short interview|to reporters] [on {day}|later that day|hours after the news broke|that afternoon].',
  '[Asked|Pressed] [about|on] [the timing|what comes next|the details], {speaker_name} [declined to|would not] [elaborate|say more|go into detail].',
  '{speaker_name} [did not|declined to] [take questions|answer further questions|give a timetable] [afterwards|after the statement|on the matter].',
  '[Others|Colleagues|People close to {speaker_name}] [echoed|repeated|shared] [that view|the sentiment|those words] [in private|in later interviews|on {day}].',
  '[The statement|The remarks|Those words|The comment] [did not|failed to|stopped short of saying] [say|address|mention|spell out] [what comes next|how long it would take|what it would cost|the timing].',
  '[It was|That was] the [first|only] [public comment|official reaction|on-the-record comment] [since|after] [the news broke|the announcement].',
  '[Similar|Comparable] [views|words|sentiments] [were|had been] [expressed|voiced] [by others|by colleagues|elsewhere] [in recent weeks|in the days before|earlier].',
  '[Those|The] words [were|have been] [widely|often] [repeated|shared|quoted] [online|in local media|since then].',
];

/** What every kind of news may add as background or as a closing line. */
const COMMON_BACKGROUND = [
  '[It was|This was] the [latest|second|third] [such|similar] [announcement|event|case] [this year|in recent months], [by one count|according to local records|by our count].',
  '[Details remained|Further details were still|Information remained] [scarce|limited|patchy] [late on|on] {day}.',
  '[The news|Word of {{noun}}] [spread|circulated|travelled] [quickly|fast|rapidly] [on social media|online|among residents|in the industry].',
  '[Interest in|Attention to|Debate over] {{topic}} has [grown|risen|increased] [steadily|sharply|noticeably] [in recent years|since 2020|over the past decade].',
  '[A similar|A comparable] [announcement|case|event] [last year|in 2024|two years ago] [drew|got|attracted] [far less|much less|little] [attention|coverage|notice].',
  '[The timing was|The date was] [notable|significant|unexpected] [for some|to some observers|to many], [coming|arriving] [just|only] [days|weeks] [after|before] [a busy period|a holiday|the end of the quarter].',
  '[Figures|Statistics|Data] [published|released] [earlier this year|last month|in the spring] [showed|pointed to|suggested] [how|that] {{topic}} [had|has] [changed|grown|shifted] [over time|in recent years].',
];

export const CLOSING = [
  'This [story|article|report] [will be|may be] updated [as more information becomes available|with further details|as the situation develops].',
  '[More details are|Further details are|More information is] [expected|due] [later in the day|in the coming days|in a statement later this week].',
  '{{sayer}} [did not immediately|could not immediately|did not] respond to [requests|a request] for [further|more] [comment|details].',
  '[A fuller picture|A clearer picture|The full picture] [is likely to|should|may] [emerge|take shape] [in the coming days|over the next week|once more information is released].',
  '[Readers|Anyone] with [information|more details] [about|on] {{noun}} [can|may] [contact|reach] [our newsroom|the editors|our reporters].',
  '[Our|This] [coverage|reporting] [continues|will continue] [as the story develops|in the coming days|online].',
];

/** What may end a sentence before its stop, to vary how long sentences run. */
export const TAILS = [
  ', [officials|aides|observers|insiders|those involved|two people present] [said|noted|added|confirmed|pointed out]',
  ', according to [local media|people briefed on it|several accounts|those involved|a person present|reports]',
  ' [at a time when|as|while|just as] {{topic}} [remains|is|stays] [under scrutiny|a worry|in the spotlight|high on the agenda|contested|much debated]',
  ', [which|something that|a fact that] [surprised|did not surprise|worried|reassured] [few|many|some|several] [observers|people|analysts|locals]',
  ' [days|weeks|hours|soon] [after|before] {{noun}} [was announced|became known|made news|drew notice]',
  ', [a detail|a point|a fact] [several|many|some|few] [observers|commentators|residents|readers] [seized on|noted|repeated|questioned|missed]',
  ', [though|although|even if] [few|not many|only some] [details|specifics|figures|numbers] [were|had been|have been] [given|released|confirmed|shared]',
  ', [another|one more|a further|a new] [sign|indication|reminder|example] of how {{topic}} [is changing|has shifted|is evolving|keeps moving|draws attention]',
  ' [for now|so far|at least for now|for the moment|as of now|until further notice]',
  ', [by most|by many|by some|by several] [accounts|estimates|reckonings|measures]',
  ', [it|that] [seemed|appeared|looked] [clear|likely|plausible|certain] [to many|to some|to observers|to most]',
  ' [in|across|throughout|around] [recent|past|earlier|previous] [weeks|months|days|seasons]',
];

interface CategoryPhrases {
  background: string[];
  analysis: string[];
  outlook: string[];
}

export const CATEGORY_PHRASES: Record<StoryCategory, CategoryPhrases> = {
  BUSINESS: {
    background: [
      ...COMMON_BACKGROUND,
      '{{noun}} [comes|came] [after|amid|following] [months|weeks|a year] of [speculation|uncertainty|talks|discussion] [about|over] {{topic}}.',
      '{{actor}} [has|had] [spent|been working] [the past|the last] [two|three|several] years [reshaping|refocusing|restructuring] its [business|operations|portfolio].',
      '[Revenue|Sales|Earnings] at {{actor}} [rose|grew|climbed|fell|slipped] [about|roughly|nearly] [4|7|9|12|15] percent [last year|in the most recent year|in its latest results].',
      '[Higher|Rising|Volatile] [interest rates|borrowing costs|input prices] have [weighed on|complicated|reshaped] {{topic}} [this year|in recent months|since last spring].',
      '{{actor}} [is|ranks as] [one of the|among the] [larger|better known|fastest growing] [companies|firms|groups] in its [field|market|sector].',
      '[Industry figures|Data from trade groups|Figures from analysts] [show|suggest] [activity|volumes|orders] [recovering|picking up|rebounding] after a [slow|weak|quiet] [start to the year|first half|stretch last year].',
      '{{actor}} was [founded|established|set up] [in the 1990s|decades ago|more than twenty years ago] and [has|now has] [offices|operations|customers] in [several|dozens of|many] countries.',
      '[Earlier this year|Last year|In the spring], {{actor}} [cut|trimmed|reviewed] [costs|jobs|its forecasts] [as|after] [demand|orders|sales] [softened|slowed|stalled].',
      '[Few|Not many|Only a handful of] [similar|comparable] [moves|deals|announcements] [have been|had been] [made|seen] [this year|so far this year|in the sector lately].',
      '[Competition|Pressure from rivals|Price competition] in [the sector|its markets|the industry] has [grown|intensified|sharpened] [as|while] [newer|smaller|foreign] [players|rivals|entrants] [expanded|gained ground|cut prices].',
      '{{actor}} [reported|posted|announced] [higher|lower|steady] [profits|earnings|margins] [in its last|for its most recent|in the previous] [quarter|results|financial year].',
      '[The shares of {{actor}}|Stock in {{actor}}] [had|have] [risen|fallen|moved little] [about|roughly] [10|20|5] percent [this year|over the past twelve months|since January].',
      '[Customers|Suppliers|Partners] of {{actor}} [have|had] [been told|been informed|learned] [little|few details|almost nothing] [about|of] [the plans|its strategy|what lies ahead].',
      '{{actor}} [employs|has] [thousands of|several thousand|tens of thousands of] [people|staff|workers] [worldwide|across its markets|in several countries].',
      '[Management|The leadership|Executives] at {{actor}} [had|have] [promised|pledged] [investors|shareholders] [a clearer strategy|faster growth|better returns] [for some time|since last year|in recent months].',
    ],
    analysis: [
      '[Analysts|Industry analysts|Market watchers] [said|noted|argued] {{noun}} [was|looked|seemed] [a sign of|evidence of|part of] [broader|wider|deeper] [changes|shifts|trends] in {{topic}}.',
      '[Some|Several|A few] [investors|observers|analysts] [questioned|doubted|wondered about] [the timing|the logic|the cost] of {{noun}}, [pointing to|citing|noting] [a cooling economy|tight margins|fierce competition].',
      '[One|An] [analyst|industry consultant|portfolio manager] [described {{noun}} as|called {{noun}}] [a bold step|a logical move|a defensive move|an overdue step] for {{actor}}.',
      "[Others|Supporters|Some analysts] [argued|said|believed] {{noun}} [would|could|should] [strengthen|improve|steady] {{actor}}'s [position|finances|prospects] [over time|in the long run|within a few years].",
      "[Credit rating agencies|Rating agencies|Lenders] [said|indicated] they [would|were going to] [review|watch|assess] [the effect|the impact] of {{noun}} on {{actor}}'s [debt|balance sheet|credit rating].",
      '[Much|A great deal|A lot|Plenty] [will depend|depends|hinges|rests] on [how|whether] {{actor}} [manages|handles|delivers] [the integration|the transition|the next steps], [analysts|observers|experts] [said|cautioned|warned].',
      '[The move|{{noun}}] [fits|matches|follows] a [pattern|trend|strategy] [seen|visible|common] [across|throughout|in] {{topic}}.',
      '[Consultants|Bankers|Advisers] [involved in|familiar with|close to] [similar|comparable|earlier] [moves|deals|decisions] [said|noted] [such steps|these moves] [often|rarely|seldom] [pay off|go smoothly|work out] [quickly|at first|as planned].',
      '[A report|A note|Research] from [a brokerage|an investment bank|a consultancy] [said|suggested|argued] {{noun}} [could|would|might] [lift|weigh on|reshape] [earnings|margins|results] [next year|over time|in the short term].',
      '[Not everyone was|Not all observers were] [convinced|persuaded|impressed], [with one|and one|one] [fund manager|former executive|trade union official|investor] [calling it|describing it as|dismissing it as] [a costly bet|a gamble|a distraction].',
      '[Employees|Staff|Unions] [will be watching|want to know|are asking] [whether|how] {{noun}} [affects|changes|will affect] [jobs|working conditions|their roles].',
      '[Competitors|Rivals|Other companies] in {{topic}} [may|could|are likely to] [respond|react|adjust their plans] [in the coming months|before long|soon], [analysts|observers] [said|suggested].',
    ],
    outlook: [
      '{{actor}} [is expected to|will|plans to] [give|provide|share] [more details|an update|further information] [with its next results|at an investor meeting|in the coming weeks].',
      '[Further|More] [announcements|changes|steps] [could|may|might] [follow|come] [later this year|in the months ahead|before the end of the year].',
      '[Investors|Analysts|Observers] [will be watching|will look closely at|are waiting for] [the next quarterly figures|the guidance of {{actor}}|the next results] for [signs|evidence|clues] of [progress|the effect of the move|what comes next].',
      '{{actor}} [said|indicated|stressed] it [remained|was] [committed|focused] on [growth|its strategy|its customers] [despite|amid|regardless of] [the uncertain economy|market swings|the change].',
      '[It was not clear|It remained unclear|It is not yet known] [whether|if] [other|rival] [companies|firms|groups] [would|might] [respond|follow suit|make similar moves].',
      '[Regulatory|Shareholder|Board] [approval|sign-off|votes] [may|could|will] [be needed|be required|take time] [before|ahead of] [the next steps|completion|any changes].',
      '{{actor}} [is due to|will|is scheduled to] [report|publish|present] [results|its next figures|quarterly earnings] [next month|in the coming weeks|later this quarter].',
      '[Executives|Managers|Officials] at {{actor}} [said|indicated] [further|more] [details|plans|announcements] [would|could] [follow|come] [at|with|during] [an investor day|the next results|a briefing].',
      '[The effect|The impact] of {{noun}} on [customers|prices|jobs] [will|may] [take time|take months|not be clear] [to show|to become clear|for a while].',
    ],
  },
  HAZARD: {
    background: [
      ...COMMON_BACKGROUND,
      '{{place}} [has|had] [experienced|seen|suffered] [several|a number of|repeated] [similar|comparable|serious] [events|disasters|emergencies] [in recent years|over the past decade|since 2015].',
      '[Scientists|Researchers|Experts] have [long|repeatedly|often] [warned|cautioned] that {{topic}} [poses|is] a [growing|serious|rising] [risk|threat|concern] [for|to] {{place}}.',
      '[The last|The previous] [comparable|major|similar] [event|emergency] in {{place}} [came|happened] [in 2019|three years ago|in 2021|a decade ago] and [caused|left] [heavy damage|widespread disruption|lasting damage].',
      '[Budgets for|Spending on|Investment in] [emergency services|disaster preparedness|early warning systems] [have|had] [grown|been increased|been cut] [in recent years|since then|over the past decade].',
      '[Large parts of|Much of|Many areas of] {{place}} [are|lie] in [areas|zones|regions] [considered|classed|seen] as [high-risk|vulnerable|exposed] by [planners|scientists|insurers].',
      '[Older buildings|Poorer neighbourhoods|Rural communities] [are|tend to be|remain] [most|especially|particularly] [exposed|vulnerable|at risk] [when|whenever] [such events|disasters|emergencies] [strike|happen|occur].',
      '[Insurers|Insurance companies|Reinsurers] have [raised|increased|reviewed] [premiums|prices|their estimates of risk] in {{place}} [after|following|because of] [a run of|several|recent] [costly|damaging|severe] [years|seasons|events].',
      '{{noun}} [comes|came] [weeks|months|only days] after [officials|experts|authorities] [published|presented|updated] [a report|a review|new guidance] on {{topic}}.',
      '[Forecasters|Scientists|Officials] [had|have] [issued|published|given] [warnings|alerts|advice] about {{topic}} [earlier in the season|in the days before|several times this year].',
      '[Emergency drills|Public information campaigns|Evacuation exercises] [were held|took place|were organised] in {{place}} [last year|in recent years|only months ago].',
      '[Population growth|New construction|Urban expansion] [has|had] [pushed|brought|put] more [people|homes|buildings] into [areas|places|zones] [at risk|exposed to such events|prone to disasters].',
      "[The national government|Authorities|The state] [had|has] [set aside|promised|allocated] [funds|money|resources] [for|to] [prevention|preparedness|emergency response] [in this year's budget|last year|after earlier disasters].",
    ],
    analysis: [
      '[Experts|Scientists|Specialists] [said|noted|explained] [it was|it is] [too early|still too early|not yet possible] to [say|tell|judge] [how much|what] [damage|loss|harm] {{noun}} [had caused|caused|would cause].',
      '[Experts|Specialists|Engineers] [said|stressed|pointed out] that [preparation|early warnings|building rules] [had|have] [likely|probably] [limited|reduced|kept down] [the toll|the damage|the losses].',
      '[An expert|A researcher|A specialist] at [a university|a national research institute|an independent institute] [described {{noun}} as|called {{noun}}] [unusual but not unexpected|significant for the season|a reminder of the risks].',
      '[Questions|Concerns] [were|have been] [raised|asked] about [how quickly|whether] [warnings|alerts|help] [reached|got to] [residents|people in the area|those affected].',
      '[Local|Regional] [officials|leaders] [said|acknowledged] [the response|emergency plans] [would|will] be [reviewed|examined|looked at again] [once the emergency is over|in the coming weeks|after the clean-up].',
      '[Economists|Analysts] [said|estimated] [the cost|the economic cost|the bill] of {{noun}} [could|would|might] [run high|be considerable|take months to tally].',
      '[Relief groups|Charities|Aid workers] [said|warned] [the poorest|the most vulnerable|older] [residents|households|people] [would|could] [bear|feel] [the brunt|the worst|most] of [the effects|the damage|the disruption].',
      '[Engineers|Planners|Specialists] [said|argued|warned] [older|existing|some] [infrastructure|buildings|networks] [was|were] [not designed|never designed|not built] [for|to cope with] [events of this size|such conditions|this kind of stress].',
      '[The scale|The severity|The speed] of {{noun}} [surprised|caught out|tested] [some|many|even experienced] [residents|responders|officials], [observers|experts] [said|noted].',
      '[Insurance losses|Damage claims|The cost to insurers] [are likely to|could|may] [be|run] [significant|in the millions|substantial], [one analyst|an industry group|a risk expert] [estimated|said].',
      '[Local|Community] [groups|leaders|organisations] [said|argued] [lessons|changes|improvements] [from|after] [earlier|past|previous] [emergencies|events|disasters] [had|have] [helped|made a difference|paid off].',
    ],
    outlook: [
      '[Authorities|Officials|Forecasters] [warned|said|cautioned] that [conditions|the situation] [could|might|may] [worsen|change quickly|remain dangerous] [over the next few days|in the coming days|this week].',
      '[A full assessment|A detailed assessment|Damage assessments] [is|are] [expected|due|likely] [later this week|within days|in the coming days].',
      '[Residents|People in the area|Those affected] [were|have been] [advised|told|asked] to [follow|keep up with|listen to] [official updates|local radio|instructions from authorities].',
      '[Aid|Emergency funds|Support] [for|to] [affected|the worst-hit] [families|communities|areas] [is|was] [expected|promised|being arranged] [soon|within days|by the government].',
      '[Repairs|Clean-up work|Recovery] [could|may|will likely] take [weeks|months|a long time], [officials|engineers|authorities] [said|estimated|warned].',
      '[Officials|Authorities|Leaders] [promised to review|pledged to review|said they would review] [building codes|warning systems|emergency plans] [once the emergency is over|in the coming months|after the recovery].',
      '[Volunteers|Aid groups|Charities] [were|have been] [collecting|gathering|organising] [donations|supplies|help] for [those affected|affected families|the worst-hit areas].',
      '[Schools|Businesses|Public offices] [in|across] [affected|the worst-hit|some] areas [are expected to|may|will] [reopen|resume normal operations|return to normal] [within days|next week|once inspections are done].',
    ],
  },
  PUBLIC: {
    background: [
      ...COMMON_BACKGROUND,
      '{{noun}} [comes|came] [after|amid|following] [months|weeks|a year] of [debate|speculation|preparation|discussion] [about|over] {{topic}}.',
      '[Public|Official] [records|figures|data] [show|suggest|indicate] [a rise|an increase|a steady climb] in [similar|comparable|related] [cases|events|reports] [over the past|in the last] [five|ten|few] years.',
      '[Similar|Comparable|Earlier] [events|cases|episodes] [drew|attracted|received] [wide|considerable|little] [attention|coverage|notice] [at the time|in the press|abroad].',
      '[Little|Not much] was [known|said] [publicly|in public] about [the plans|the matter|the details] [until|before] {day}.',
      '[The government|Officials|Authorities] [had|have] [promised|pledged] [action on|to improve|more attention to] {{topic}} [for years|repeatedly|in recent months].',
      '[Earlier|Previous] [attempts|efforts|plans] had [stalled|faltered|been delayed] [because of|over|amid] [funding|cost|political] [disputes|concerns|problems].',
      '{{place}} [has|had] [seen|experienced] [several|a number of] [similar|comparable] [moments|episodes|events] [in recent years|over the past decade].',
      '[Residents|Citizens|People] in {{place}} [have|had] [followed|watched|discussed] {{topic}} [closely|with interest|for years].',
      '[A survey|A poll|A study] [published|released|carried out] [last year|earlier this year|in the spring] [found|suggested|showed] [that|] [many|most|a majority of] [people|respondents|residents] [cared about|worried about|were divided over] {{topic}}.',
      '[Officials|Lawmakers|Local leaders] [have|had] [argued|debated|disagreed] [for years|at length|repeatedly] [over|about] [how|whether] to [address|handle|pay for] {{topic}}.',
      '[International|Regional|Foreign] [attention|interest] [has|had] [focused|turned|settled] on {{topic}} [more than once|several times|in recent years].',
      '[The last|The previous] [comparable|similar] [moment|event] [came|took place|happened] [in 2018|five years ago|in 2021|a decade ago] and [drew|attracted] [crowds|wide coverage|international notice].',
      '[Budgets|Funding|Resources] [for|devoted to] {{topic}} [have|had] [grown|shrunk|stayed flat] [in recent years|over the past decade|since 2020].',
    ],
    analysis: [
      '[Observers|Commentators|Experts] [said|noted|argued] {{noun}} [reflected|showed|pointed to] [broader|wider|longer-term] [trends|changes|shifts] in {{topic}}.',
      '[Critics|Sceptics|Opponents] [questioned|doubted|challenged] [whether|how far] {{noun}} [would|could] [change|make a difference to] [much|anything|the wider picture].',
      '[One|An] [expert|academic|observer] [described {{noun}} as|called {{noun}}] [a turning point|an important moment|a notable step] [for|in] {{topic}}.',
      '[Supporters|Others|Proponents] [said|argued|countered] {{noun}} [was|marked] [a long overdue|a welcome|an encouraging] [step|change|development].',
      '[How much|Whether] {{noun}} [will|would] [matter|change things] [in the long run|beyond the headlines|for ordinary people] [remains|remained|is] [to be seen|an open question|unclear].',
      '[Some|Several|A few] [commentators|columnists|observers] [said|wrote|argued] {{noun}} [would|could] [be remembered|stand out|be seen] as [a milestone|a symbol|a test] [for|of] {{topic}}.',
      '[Academics|Researchers|Experts] [who study|specialising in|familiar with] {{topic}} [said|noted|cautioned] [such|these] [moments|events] [rarely|seldom] [change|alter|shift] [much|the underlying picture|long-term trends] [on their own|by themselves|quickly].',
      '[Public reaction|Reaction online|Reaction in the streets] [was|appeared|seemed] [mixed|largely positive|muted|divided], [judging by|according to|going by] [social media|local reports|early polls].',
      '[The way|How] {{noun}} [was|is] [handled|managed|presented] [will be|could be|may be] [scrutinised|examined|debated] [for weeks|in the months ahead|by critics].',
      '[For|To] [many|some|supporters], {{noun}} [was|felt like] [a moment of pride|a long-awaited moment|a relief] [after|following] [years|a long period] of [waiting|debate|uncertainty].',
    ],
    outlook: [
      '[More|Further] [details|information|announcements] [are expected|will follow|should come] [in the coming days|later this week|as they become available].',
      '[Officials|Organisers|Authorities] [said|indicated] they [would|planned to] [publish|release|give] [a fuller account|more information|an update] [later|in the coming weeks|next week].',
      '[Attention|Focus] [will|is likely to] [now|soon] [turn|shift] to [what follows|the next steps|the longer-term effects].',
      '[It was not clear|It remained unclear] [whether|when] [further|similar] [steps|events|measures] [would|might] [follow|be taken].',
      '[A report|A review|An inquiry] on {{noun}} [is expected|is due|could be published] [later this year|within months|in the new year].',
      '[Officials|Organisers|Authorities] [said|promised] they [would|planned to] [keep|hold] [the public|residents|people] [informed|updated] [as|while] [things|plans|events] [develop|move forward|unfold].',
      '[Further|More] [events|steps|announcements] [related to|connected with|linked to] {{topic}} [are planned|are expected|may follow] [in the coming months|later this year|next year].',
      '[Critics|Supporters|Observers] [said|vowed|expected] they [would|will] [keep watching|follow closely|keep an eye on] [what happens next|the follow-up|the next steps].',
    ],
  },
};

/** News agencies whose stories outlets republish (named in datelines and credit lines). */
export const WIRE_AGENCIES = ['Associated Wire', 'Global News Service', 'Continental Press Agency', 'World Report Wire', 'National Press Association'];
