// The world of the replay: lights, camera, the contact surfaces (planes, height fields), and
// per run the force arrows, contact points and the traced path, all Z-up.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

THREE.Object3D.DEFAULT_UP.set(0, 0, 1);

export function makeWorld(canvas) {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f5f7);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 1.6);
  sun.position.set(3, -2, 5);
  scene.add(sun);
  const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 200);
  camera.up.set(0, 0, 1);
  const controls = new OrbitControls(camera, canvas);
  return { renderer, scene, camera, controls };
}

// Aims the camera at a box that holds the given points.
export function frame(world, box) {
  const c = box.getCenter(new THREE.Vector3());
  const r = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 0.3);
  world.controls.target.copy(c);
  world.camera.position.set(c.x + 2.2 * r, c.y - 2.6 * r, c.z + 1.4 * r);
  world.camera.near = r / 100;
  world.camera.far = r * 100;
  world.camera.updateProjectionMatrix();
  world.controls.update();
}

export function addSurfaces(scene, surfaces) {
  const group = new THREE.Group();
  const wall = new THREE.MeshStandardMaterial({ color: 0xb9c3cc, transparent: true, opacity: 0.45,
                                                side: THREE.DoubleSide, depthWrite: false });
  let ground = false;
  for (const p of surfaces.planes) {
    if (p.ground) {
      ground = true;
      continue;
    }
    const n = new THREE.Vector3(...p.normal).normalize();
    const mesh = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), wall);
    mesh.position.set(...p.point);
    mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
    mesh.name = p.name;
    group.add(mesh);
  }
  for (const h of surfaces.heightfields) {
    const g = new THREE.PlaneGeometry((h.nx - 1) * h.dx, (h.ny - 1) * h.dy, h.nx - 1, h.ny - 1);
    const pos = g.attributes.position;
    // PlaneGeometry's vertices run row by row from +y down; the field's rows run from origin y up.
    for (let iy = 0; iy < h.ny; ++iy)
      for (let ix = 0; ix < h.nx; ++ix) {
        const v = (h.ny - 1 - iy) * h.nx + ix;
        pos.setXYZ(v, h.origin[0] + ix * h.dx, h.origin[1] + iy * h.dy, h.origin[2] + h.z[iy * h.nx + ix]);
      }
    g.computeVertexNormals();
    const mesh = new THREE.Mesh(g, new THREE.MeshStandardMaterial({ color: 0xa8b59a, side: THREE.DoubleSide,
                                                                   flatShading: true }));
    mesh.name = h.name;
    group.add(mesh);
  }
  const grid = new THREE.GridHelper(4, 20, 0x9aa3ad, 0xd0d5da);
  grid.rotation.x = Math.PI / 2;  // GridHelper lies in XZ; the world is Z-up
  grid.name = ground ? 'ground' : 'grid';
  group.add(grid);
  scene.add(group);
  return group;
}

// The arrows, contact points and path of one run; update(r) shows row r.
export class RunOverlay {
  constructor(run, scale, ghost) {
    this.run = run;
    this.group = new THREE.Group();
    this.arrows = run.arrows.map((a) => {
      const colour = a.kind === 'contact' ? 0x2e8b57 : 0xd2372c;
      const h = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 0.1, colour, 0.04, 0.025);
      h.name = a.name;
      this.group.add(h);
      return h;
    });
    this.scale = scale;
    this.showArrows = true;
    const dot = new THREE.SphereGeometry(0.012, 10, 6);
    const dotMaterial = new THREE.MeshBasicMaterial({ color: 0x2e8b57 });
    this.contacts = run.contacts.map(() => {
      const m = new THREE.Mesh(dot, dotMaterial);
      this.group.add(m);
      return m;
    });
    this.path = null;
    if (run.path) {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(run.path.points, 3));
      this.path = new THREE.Line(g, new THREE.LineBasicMaterial({ color: ghost ? 0x999999 : 0x1f4e9c,
                                                                  transparent: ghost, opacity: ghost ? 0.5 : 1 }));
      this.path.name = 'path';
      this.group.add(this.path);
    }
  }

  update(r) {
    const d = new THREE.Vector3();
    this.run.arrows.forEach((a, k) => {
      const h = this.arrows[k];
      d.set(a.force[3 * r], a.force[3 * r + 1], a.force[3 * r + 2]);
      const len = d.length() * this.scale;
      h.visible = this.showArrows && len > 1e-4;
      if (!h.visible) return;
      h.position.set(a.origin[3 * r], a.origin[3 * r + 1], a.origin[3 * r + 2]);
      h.setDirection(d.normalize());
      h.setLength(len, Math.min(0.04, 0.3 * len), Math.min(0.025, 0.2 * len));
    });
    this.run.contacts.forEach((c, k) => {
      const m = this.contacts[k];
      m.visible = c.active[r] > 0;
      m.position.set(c.point[3 * r], c.point[3 * r + 1], c.point[3 * r + 2]);
    });
  }
}

// One metre of arrow per this many newtons: the largest force of all runs is drawn 0.5 m long.
export function arrowScale(runs) {
  let fmax = 0;
  for (const run of runs)
    for (const a of run.arrows)
      for (let i = 0; i < a.force.length; i += 3)
        fmax = Math.max(fmax, Math.hypot(a.force[i], a.force[i + 1], a.force[i + 2]));
  return fmax > 0 ? 0.5 / fmax : 1;
}
