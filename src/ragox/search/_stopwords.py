"""Snowball stop word lists for English, German and Russian, used to analyze queries.

The lists are those published with the Snowball stemmers
(https://snowballstem.org/algorithms/{english,german,russian}/stop.txt), reduced to
single ``\\w+`` tokens (English contractions such as "don't" split into pieces
that are not words; Russian "её" and "ещё" added beside "ее" and "еще"), and
distributed under this licence:

    Copyright (c) 2001, Dr Martin Porter
    Copyright (c) 2004,2005, Richard Boulton
    Copyright (c) 2013, Yoshiki Shibukawa
    Copyright (c) 2006,2007,2009,2010,2011,2014-2019, Olly Betts
    All rights reserved.

    Redistribution and use in source and binary forms, with or without
    modification, are permitted provided that the following conditions are met:

    1. Redistributions of source code must retain the above copyright notice, this
       list of conditions and the following disclaimer.
    2. Redistributions in binary form must reproduce the above copyright notice,
       this list of conditions and the following disclaimer in the documentation
       and/or other materials provided with the distribution.
    3. Neither the name of the Snowball project nor the names of its contributors
       may be used to endorse or promote products derived from this software
       without specific prior written permission.

    THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND
    ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED
    WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
    DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE FOR
    ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES
    (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES;
    LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON
    ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
    (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
    SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""

from __future__ import annotations

from typing import Final

__all__ = ["SNOWBALL_STOPWORDS"]

_ENGLISH: Final = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his
himself she her hers herself it its itself they them their theirs themselves what which
who whom this that these those am is are was were be been being have has had having do
does did doing would should could ought cannot a an the and but if or because as until
while of at by for with about against between into through during before after above
below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same
so than too very
"""

_GERMAN: Final = """
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
anderes anderm andern anderr anders auch auf aus bei bin bis bist da damit dann der den
des dem die das daß du er ihn ihm es ein eine einem einen einer eines für gegen gewesen
hab habe haben hat hatte hatten hier hin hinter ich mich mir ihr ihre ihrem ihren ihrer
ihres euch im in indem ins ist jede jedem jeden jeder jedes jene jenem jenen jener jenes
jetzt kann kein keine keinem keinen keiner keines können könnte machen man manche
manchem manchen mancher manches mein meine meinem meinen meiner meines mit muss musste
nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seines
selbst sich sie ihnen sind so solche solchem solchen solcher solches soll sollte sondern
sonst über um und uns unsere unserem unseren unser unseres unter viel vom von vor
während war waren warst was weg weil weiter welche welchem welchen welcher welches wenn
werde werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur
zwar zwischen
"""

_RUSSIAN: Final = """
и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только
ее мне было вот от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни
быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где
есть надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет ж
тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем чтобы
нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над
больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою
этой перед иногда лучше чуть том нельзя такой им более всегда конечно всю между
её ещё
"""

#: ISO 639-1 code → the Snowball stop list of that language
SNOWBALL_STOPWORDS: Final = {
    "en": frozenset(_ENGLISH.split()),
    "de": frozenset(_GERMAN.split()),
    "ru": frozenset(_RUSSIAN.split()),
}
