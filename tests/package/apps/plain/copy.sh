mkdir -p public/simplexity
cp -r node_modules/simplexity/dist/. public/simplexity/
rm public/simplexity/*.d.ts public/simplexity/simplexity-widgets.js
