#!/usr/bin/env python3
"""Writes the training text of the reference tokenizers (tests/fixtures/tokenizers) into OUT_DIR.

Usage: corpus.py OUT_DIR

Standard library only and deterministic. All text is written here: hand-written sentences in
English, French, German, Spanish, Russian, Chinese, Japanese, Korean and Arabic, with emoji, plus
English sentences built from templates (so the frequent English words and their pieces dominate,
as in a real corpus). Writes:
  corpus_en.txt     English only (the byte-level BPE, WordPiece, WordLevel and char BPE tokenizers)
  corpus_multi.txt  English plus every other language (the SentencePiece models)
"""
import os
import random
import sys

SEED = 20250611

ENGLISH = [
    "The quick brown fox jumps over the lazy dog.",
    "I don't think they'll arrive before noon, but we've waited long enough.",
    "She said: \"It's not what you know, it's who you know.\"",
    "In 2023, the company hired 1,250 new employees and opened 14 offices.",
    "The meeting was moved from Tuesday to Thursday at 3:30 pm.",
    "Can you tell me where the nearest train station is?",
    "He's been working on the project since January; it's almost finished.",
    "Researchers trained the model for 10 epochs with a learning rate of 0.0001.",
    "The weather today is sunny with a high of 25 degrees.",
    "We couldn't find the keys anywhere, so we called a locksmith.",
    "Reading books is one of the best ways to learn new words.",
    "The museum opens at nine o'clock and closes at five.",
    "Please send the report to the team by Friday afternoon.",
    "Machine learning models need a lot of data to generalize well.",
    "The children played football in the park until it got dark.",
    "They're planning a trip to the mountains next summer.",
    "My favourite fruits are apples, oranges, bananas and grapes.",
    "The price of the ticket was $45.99, including taxes.",
    "Don't forget to water the plants while I'm away!",
    "The tokenizer splits text into words, subwords and characters.",
    "Who wrote the first version of this program?",
    "The river flows through the city and into the sea.",
    "It was the best of times, it was the worst of times.",
    "Our new state-of-the-art laboratory will open in March.",
    "You'd better finish your homework before dinner.",
    "The answer to question number 42 is surprisingly simple.",
    "Email us at support@example.com or visit https://example.com/help.",
    "The cat sat on the mat and looked at the bird outside.",
    "A small village lies at the foot of the hill.",
    "We'll need more time to review the results carefully.",
    "Scientists discovered a new species of frog in the rainforest.",
    "The library has more than 100,000 books and 2,500 journals.",
    "Nobody knew why the lights went out during the storm.",
    "The train was delayed by twenty minutes because of the snow.",
    "Running, swimming and cycling are all good forms of exercise.",
    "The president gave a speech about education and health care.",
    "Fine-tuning a pretrained model usually takes only a few hours.",
    "What time does the concert start tonight?",
    "Her grandmother baked bread every Sunday morning.",
    "The students asked many questions after the lecture.",
    "This sentence contains some UPPERCASE words and MixedCase Words.",
    "For example: apples (red), lemons (yellow) and limes (green).",
    "The results were better than expected -- about 12% higher.",
    "I can't believe it's already the end of the year!",
    "Please read the instructions carefully before you begin.",
    "The old bridge was rebuilt in 1998 after the flood.",
    "Tokenization, normalization and pre-tokenization happen before the model runs.",
    "John Smith lives in New York and works for a bank.",
    "Mary and Peter visited London, Paris and Berlin last year.",
    "The encoder reads the whole sentence at once.",
]

SUBJECTS = ["the teacher", "my brother", "a young student", "the old man", "our neighbour", "the team",
            "every engineer", "the small dog", "her friend", "the company", "this model", "the farmer",
            "a famous writer", "the committee", "my parents", "the doctor"]
VERBS = ["reads", "writes", "builds", "finds", "likes", "needs", "opens", "watches", "tests", "sells",
         "moves", "cleans", "explains", "changes", "remembers", "follows"]
OBJECTS = ["a long letter", "the new house", "three red apples", "the broken window", "every question",
           "the morning news", "an interesting book", "the final report", "two large boxes",
           "the training data", "a simple answer", "the wooden table", "some fresh bread", "the results"]
ENDINGS = [".", " today.", " every morning.", " again and again.", " before lunch.", " in the evening.",
           "!", "?", " with great care.", " without any help.", " at 7 o'clock.", " in 2021."]

FRENCH = [
    "L'élève a réussi l'examen à Noël, malgré la fièvre.",
    "Nous sommes allés au marché acheter des pêches et du fromage.",
    "Où est la bibliothèque ? Elle est à côté de l'hôpital.",
    "Le garçon a mangé une crème brûlée au café du coin.",
    "Il fait très beau aujourd'hui, n'est-ce pas ?",
    "Les enfants jouent dans le jardin derrière l'école.",
    "J'ai lu ce roman pendant les vacances d'été.",
    "Ça coûte vingt-cinq euros, s'il vous plaît.",
    "La forêt est magnifique en automne, avec ses feuilles dorées.",
    "Nous étudions la théorie et la pratique de l'apprentissage.",
]
GERMAN = [
    "Die Größe der Straße überrascht mich jedes Mal.",
    "Wir fahren im Frühling mit dem Zug nach München.",
    "Das Mädchen liest ein Buch über Käfer und Schmetterlinge.",
    "Könnten Sie mir bitte den Weg zum Bahnhof zeigen?",
    "Die Universität hat viele ausländische Studenten.",
    "Übung macht den Meister, sagt meine Großmutter.",
    "Heute ist es kälter als gestern, aber weniger windig.",
    "Der Bäcker öffnet seinen Laden um sechs Uhr früh.",
]
SPANISH = [
    "El niño comió una manzana en la montaña.",
    "¿Dónde está la estación de tren? ¡Está muy lejos!",
    "Mañana vamos a visitar a nuestros abuelos en Sevilla.",
    "La canción más famosa del año habla del corazón.",
]
RUSSIAN = [
    "Привет, мир! Как у тебя дела сегодня?",
    "Москва — столица России и крупнейший город страны.",
    "Я люблю читать книги по вечерам.",
    "Мы поехали на море летом и купались каждый день.",
    "Эта задача оказалась сложнее, чем мы думали.",
    "Ёжик в тумане — известный мультфильм.",
]
CHINESE = [
    "我爱北京天安门。",
    "今天天气很好，我们去公园散步吧。",
    "这是一个用于测试的中文句子。",
    "学习语言需要时间和耐心。",
    "他每天早上喝一杯咖啡。",
    "北京是中国的首都，上海是最大的城市。",
]
JAPANESE = [
    "日本語のテキストです。",
    "東京は日本の首都です。",
    "カタカナとひらがなを勉強しています。",
    "今日はとても良い天気ですね。",
    "コンピュータで文章を書きます。",
    "ありがとうございます。またね！",
]
KOREAN = [
    "안녕하세요 세계",
    "저는 학생입니다. 한국어를 공부해요.",
    "오늘 날씨가 정말 좋네요.",
    "서울은 한국의 수도입니다.",
]
ARABIC = [
    "مرحبا بالعالم",
    "أنا أحب القراءة في المساء.",
    "القاهرة هي عاصمة مصر.",
]
EMOJI = [
    "I love pizza 🍕 and coffee ☕!",
    "Great job 👍 see you tomorrow 😀",
    "Happy birthday 🎉🎂 to my best friend ❤️",
    "The weather is ☀️ today but 🌧️ tomorrow.",
    "We are going to the beach 🏖️ 😎",
    "LOL 😂😂😂 that was so funny",
]


def english_lines(rng, count):
    lines = []
    for _ in range(count):
        if rng.random() < 0.45:
            lines.append(rng.choice(ENGLISH))
        else:
            s = "%s %s %s%s" % (rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(ENDINGS))
            lines.append(s[0].upper() + s[1:])
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(SEED)
    en = english_lines(rng, 3000)
    with open(os.path.join(out, "corpus_en.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(en) + "\n")
    other = FRENCH * 30 + GERMAN * 30 + SPANISH * 20 + RUSSIAN * 30 + CHINESE * 30 + JAPANESE * 30 + \
        KOREAN * 30 + ARABIC * 20 + EMOJI * 20
    multi = english_lines(rng, 2500) + other
    rng.shuffle(multi)
    with open(os.path.join(out, "corpus_multi.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(multi) + "\n")


if __name__ == "__main__":
    main()
